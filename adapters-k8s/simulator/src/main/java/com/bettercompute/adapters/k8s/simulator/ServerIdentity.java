package com.bettercompute.adapters.k8s.simulator;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.KeyUse;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;

/**
 * What makes the simulated Kubernetes API server the same server across restarts: its TLS key and
 * self-signed certificate (the CA every simulated cluster reports, so kubeconfigs handed out keep
 * verifying it), its port (part of every cluster's endpoint) and the key its tokens are signed with
 * (so tokens handed out stay valid until they expire): an RSA key, as ServiceAccount tokens are RS256 JWTs. The certificate is made here — an RSA key
 * from the JDK, an X.509 v3 certificate built by Bouncy Castle for {@code localhost} and {@code 127.0.0.1},
 * valid for ten years — since fabric8's mock server makes a new one of its own at every start.
 *
 * <p>The private key and the signing key are secrets: {@link #toString()} hides them.
 */
record ServerIdentity(int port, PrivateKey tlsKey, X509Certificate certificate, String certificatePem, RSAKey serviceAccountKey) {
    private static final Duration VALIDITY = Duration.ofDays(3650);

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

    // ---------------------------------------------------------------- the certificate

    private static byte[] certificate(KeyPair keys, BigInteger serial, Instant notBefore, Instant notAfter) throws GeneralSecurityException {
        X500Name name = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, "better-compute simulated Kubernetes API").build();
        try {
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, serial, Date.from(notBefore), Date.from(notAfter),
                    name, keys.getPublic())
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                            new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")}))
                    // its own CA: what kubeconfigs name as certificate-authority-data
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                    .addExtension(Extension.subjectKeyIdentifier, false, new JcaX509ExtensionUtils().createSubjectKeyIdentifier(keys.getPublic()));
            // the JDK's own provider signs: Bouncy Castle builds the DER only, no provider is installed
            ContentSigner signer = new JcaContentSignerBuilder("SHA256withRSA").build(keys.getPrivate());
            return builder.build(signer).getEncoded();
        } catch (OperatorCreationException | IOException e) {
            throw new GeneralSecurityException(e.getMessage(), e);
        }
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
