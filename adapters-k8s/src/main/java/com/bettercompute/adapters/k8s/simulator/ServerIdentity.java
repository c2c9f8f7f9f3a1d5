package com.bettercompute.adapters.k8s.simulator;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;

/**
 * What makes the simulated Kubernetes API server the same server across restarts: its TLS key and
 * self-signed certificate (the CA every simulated cluster reports, so kubeconfigs handed out keep
 * verifying it), its port (part of every cluster's endpoint) and the key its tokens are signed with
 * (so tokens handed out stay valid until they expire): an RSA key, as ServiceAccount tokens are RS256 JWTs. The certificate is built here with the JDK
 * alone — an RSA key, a DER-encoded X.509 v3 certificate for {@code localhost} and {@code 127.0.0.1},
 * valid for ten years — since fabric8's mock server makes a new one of its own at every start.
 *
 * <p>The private key and the signing key are secrets: {@link #toString()} hides them.
 */
record ServerIdentity(int port, PrivateKey tlsKey, X509Certificate certificate, String certificatePem, RSAKey serviceAccountKey) {
    private static final Duration VALIDITY = Duration.ofDays(3650);
    private static final int[] SHA256_WITH_RSA = {1, 2, 840, 113549, 1, 1, 11};
    private static final int[] COMMON_NAME = {2, 5, 4, 3};
    private static final int[] SUBJECT_ALT_NAME = {2, 5, 29, 17};
    private static final int[] BASIC_CONSTRAINTS = {2, 5, 29, 19};

    /** A new identity: a fresh key pair and certificate, a fresh ServiceAccount signing key, any port. */
    static ServerIdentity generate(Clock clock) {
        try {
            SecureRandom random = new SecureRandom();
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048, random);
            KeyPair keys = generator.generateKeyPair();
            Instant now = clock.instant();
            byte[] der = certificate(keys, new BigInteger(63, random).add(BigInteger.ONE), now.minus(Duration.ofDays(1)), now.plus(VALIDITY));
            return new ServerIdentity(0, keys.getPrivate(), parse(der), pem("CERTIFICATE", der), newServiceAccountKey());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the simulated Kubernetes API's certificate cannot be made", e);
        }
    }

    /** A new RS256 key for ServiceAccount tokens, named by its thumbprint (the {@code kid} tokens and the JWKS carry). */
    static RSAKey newServiceAccountKey() {
        try {
            return new RSAKeyGenerator(2048).keyUse(KeyUse.SIGNATURE).algorithm(JWSAlgorithm.RS256).keyIDFromThumbprint(true).generate();
        } catch (JOSEException e) {
            throw new IllegalStateException("the ServiceAccount signing key cannot be made", e);
        }
    }

    ServerIdentity withPort(int newPort) {
        return new ServerIdentity(newPort, tlsKey, certificate, certificatePem, serviceAccountKey);
    }

    String privateKeyPem() {
        return pem("PRIVATE KEY", tlsKey.getEncoded());
    }

    /** Reads back what {@link #certificatePem()} and {@link #privateKeyPem()} wrote. */
    static ServerIdentity of(int port, String privateKeyPem, String certificatePem, RSAKey serviceAccountKey) {
        try {
            PrivateKey key = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(unpem(privateKeyPem)));
            return new ServerIdentity(port, key, parse(unpem(certificatePem)), certificatePem, serviceAccountKey);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalStateException("the saved identity of the simulated Kubernetes API cannot be read: " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "ServerIdentity[port=" + port + ", certificate=" + certificate.getSubjectX500Principal() + ", keys=<redacted>]";
    }

    // ---------------------------------------------------------------- the certificate, in DER

    private static byte[] certificate(KeyPair keys, BigInteger serial, Instant notBefore, Instant notAfter) throws GeneralSecurityException {
        byte[] algorithm = seq(oid(SHA256_WITH_RSA), new byte[] {0x05, 0x00});
        byte[] name = seq(set(seq(oid(COMMON_NAME), tlv(0x0c, "better-compute simulated Kubernetes API".getBytes(StandardCharsets.UTF_8)))));
        byte[] alternativeNames = seq(tlv(0x82, "localhost".getBytes(StandardCharsets.US_ASCII)), tlv(0x87, new byte[] {127, 0, 0, 1}));
        byte[] caTrue = seq(new byte[] {0x01, 0x01, (byte) 0xff});
        byte[] extensions = seq(
                seq(oid(SUBJECT_ALT_NAME), tlv(0x04, alternativeNames)),
                seq(oid(BASIC_CONSTRAINTS), new byte[] {0x01, 0x01, (byte) 0xff}, tlv(0x04, caTrue)));
        byte[] tbs = seq(
                tlv(0xa0, tlv(0x02, BigInteger.TWO.toByteArray())),
                tlv(0x02, serial.toByteArray()),
                algorithm,
                name,
                seq(time(notBefore), time(notAfter)),
                name,
                keys.getPublic().getEncoded(),
                tlv(0xa3, extensions));
        Signature signature = Signature.getInstance("SHA256withRSA");
        signature.initSign(keys.getPrivate());
        signature.update(tbs);
        byte[] signed = signature.sign();
        byte[] bits = new byte[signed.length + 1];
        System.arraycopy(signed, 0, bits, 1, signed.length);
        return seq(tbs, algorithm, tlv(0x03, bits));
    }

    /** UTCTime until 2049, GeneralizedTime from 2050 on, as RFC 5280 says. */
    private static byte[] time(Instant instant) {
        var at = instant.atOffset(ZoneOffset.UTC);
        if (at.getYear() < 2050) {
            return tlv(0x17, DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").format(at).getBytes(StandardCharsets.US_ASCII));
        }
        return tlv(0x18, DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'").format(at).getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] oid(int[] arcs) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(arcs[0] * 40 + arcs[1]);
        for (int i = 2; i < arcs.length; i++) {
            int arc = arcs[i];
            int shift = 28;
            while (shift > 0 && (arc >>> shift) == 0) {
                shift -= 7;
            }
            for (; shift > 0; shift -= 7) {
                out.write(0x80 | ((arc >>> shift) & 0x7f));
            }
            out.write(arc & 0x7f);
        }
        return tlv(0x06, out.toByteArray());
    }

    private static byte[] seq(byte[]... parts) {
        return tlv(0x30, concat(parts));
    }

    private static byte[] set(byte[]... parts) {
        return tlv(0x31, concat(parts));
    }

    private static byte[] tlv(int tag, byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
        out.write(tag);
        int length = content.length;
        if (length < 0x80) {
            out.write(length);
        } else {
            int bytes = length > 0xffffff ? 4 : length > 0xffff ? 3 : length > 0xff ? 2 : 1;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write(length >>> (8 * i));
            }
        }
        out.writeBytes(content);
        return out.toByteArray();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    private static X509Certificate parse(byte[] der) throws GeneralSecurityException {
        return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new java.io.ByteArrayInputStream(der));
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static byte[] unpem(String pem) {
        return Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
    }
}
