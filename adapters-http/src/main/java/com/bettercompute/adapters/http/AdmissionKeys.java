package com.bettercompute.adapters.http;

import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The admission webhooks' own keys: the platform's CA (the {@code caBundle} every cluster's webhook
 * configurations carry), the serving certificate it signs for the hosts the clusters call, and the key the
 * clusters' path tokens are derived from. Made once and kept in one PKCS#12 file, {@value #FILE}, readable by
 * its owner only (the file's mode is the protection; its store password is not a secret), so the CA and the
 * tokens written into the clusters stay valid across restarts. The serving certificate is issued again, by
 * the same CA, when it does not name a host the clusters call or nears its end. Built with the JDK alone
 * (EC P-256 keys, DER-encoded X.509 v3). Nothing here is ever logged.
 */
public final class AdmissionKeys {
    public static final String FILE = "admission-keys.p12";
    private static final char[] STORE_PASSWORD = "better-compute-admission".toCharArray();
    private static final Duration CA_VALIDITY = Duration.ofDays(3650);
    private static final Duration SERVING_VALIDITY = Duration.ofDays(825);
    private static final Duration RENEW_BEFORE = Duration.ofDays(30);
    private static final int[] ECDSA_WITH_SHA256 = {1, 2, 840, 10045, 4, 3, 2};
    private static final int[] COMMON_NAME = {2, 5, 4, 3};
    private static final int[] BASIC_CONSTRAINTS = {2, 5, 29, 19};
    private static final int[] KEY_USAGE = {2, 5, 29, 15};
    private static final int[] EXTENDED_KEY_USAGE = {2, 5, 29, 37};
    private static final int[] SERVER_AUTH = {1, 3, 6, 1, 5, 5, 7, 3, 1};
    private static final int[] SUBJECT_ALT_NAME = {2, 5, 29, 17};

    private final KeyStore store;
    private final X509Certificate ca;

    private AdmissionKeys(KeyStore store) throws GeneralSecurityException {
        this.store = store;
        this.ca = (X509Certificate) store.getCertificate("ca");
    }

    /**
     * The keys kept in {@code dir} (made there on first use), with a serving certificate naming every one of
     * {@code hosts} (DNS names or IP addresses); {@code dir} null keeps new keys in memory only.
     */
    public static AdmissionKeys open(Path dir, List<String> hosts, Clock clock) {
        try {
            Path file = dir == null ? null : dir.resolve(FILE);
            KeyStore store = KeyStore.getInstance("PKCS12");
            boolean changed = false;
            if (file != null && Files.exists(file)) {
                try (InputStream in = Files.newInputStream(file)) {
                    store.load(in, STORE_PASSWORD);
                }
            } else {
                store.load(null, null);
                newCa(store, clock);
                KeyGenerator hmac = KeyGenerator.getInstance("HmacSHA256");
                store.setEntry("path-tokens", new KeyStore.SecretKeyEntry(hmac.generateKey()),
                        new KeyStore.PasswordProtection(STORE_PASSWORD));
                changed = true;
            }
            X509Certificate serving = (X509Certificate) store.getCertificate("serving");
            if (serving == null || !covers(serving, hosts) || serving.getNotAfter().toInstant().isBefore(clock.instant().plus(RENEW_BEFORE))) {
                issueServing(store, hosts, clock);
                changed = true;
            }
            if (changed && file != null) {
                save(store, dir, file);
            }
            return new AdmissionKeys(store);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the admission webhooks' keys cannot be made or read: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("the admission webhooks' keys cannot be kept in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The TLS context the webhooks serve with: the serving key and its chain up to the CA. */
    public SSLContext sslContext() {
        try {
            KeyStore serving = KeyStore.getInstance("PKCS12");
            serving.load(null, null);
            serving.setKeyEntry("serving", store.getKey("serving", STORE_PASSWORD), STORE_PASSWORD,
                    store.getCertificateChain("serving"));
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(serving, STORE_PASSWORD);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, new SecureRandom());
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("the admission webhooks' TLS context cannot be made: " + e.getMessage(), e);
        }
    }

    /** The CA certificate, PEM: what a webhook configuration's {@code caBundle} holds (base64 of this text). */
    public String caPem() {
        try {
            return "-----BEGIN CERTIFICATE-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                    .encodeToString(ca.getEncoded()) + "\n-----END CERTIFICATE-----\n";
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The key the clusters' path tokens are derived from (HMAC-SHA256). */
    public SecretKey pathTokenKey() {
        try {
            return (SecretKey) store.getKey("path-tokens", STORE_PASSWORD);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return "AdmissionKeys[<redacted>]";
    }

    private static void save(KeyStore store, Path dir, Path file) throws IOException, GeneralSecurityException {
        Files.createDirectories(dir);
        Path temp = Files.createTempFile(dir, FILE, ".tmp");
        try {
            setOwnerOnly(temp);
            try (OutputStream out = Files.newOutputStream(temp)) {
                store.store(out, STORE_PASSWORD);
            }
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private static void setOwnerOnly(Path file) throws IOException {
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: the directory's own protection is all there is
        }
    }

    private static void newCa(KeyStore store, Clock clock) throws GeneralSecurityException {
        KeyPair keys = keyPair();
        byte[] name = name("better-compute admission CA");
        Instant now = clock.instant();
        byte[] extensions = seq(
                extension(BASIC_CONSTRAINTS, true, seq(new byte[] {0x01, 0x01, (byte) 0xff})),
                // keyCertSign and cRLSign
                extension(KEY_USAGE, true, new byte[] {0x03, 0x02, 0x01, 0x06}));
        X509Certificate cert = sign(keys.getPrivate(), name, name, keys, now, now.plus(CA_VALIDITY), extensions);
        store.setKeyEntry("ca", keys.getPrivate(), STORE_PASSWORD, new Certificate[] {cert});
    }

    private static void issueServing(KeyStore store, List<String> hosts, Clock clock) throws GeneralSecurityException {
        X509Certificate ca = (X509Certificate) store.getCertificate("ca");
        PrivateKey caKey = (PrivateKey) store.getKey("ca", STORE_PASSWORD);
        KeyPair keys = keyPair();
        ByteArrayOutputStream names = new ByteArrayOutputStream();
        for (String host : hosts) {
            byte[] ip = ipAddress(host);
            names.writeBytes(ip != null ? tlv(0x87, ip) : tlv(0x82, host.getBytes(StandardCharsets.US_ASCII)));
        }
        byte[] extensions = seq(
                extension(BASIC_CONSTRAINTS, true, seq()),
                // digitalSignature
                extension(KEY_USAGE, true, new byte[] {0x03, 0x02, 0x07, (byte) 0x80}),
                extension(EXTENDED_KEY_USAGE, false, seq(oid(SERVER_AUTH))),
                extension(SUBJECT_ALT_NAME, false, tlv(0x30, names.toByteArray())));
        Instant now = clock.instant();
        X509Certificate cert = sign(caKey, ca.getSubjectX500Principal().getEncoded(), name("better-compute admission webhooks"),
                keys, now, now.plus(SERVING_VALIDITY), extensions);
        store.setKeyEntry("serving", keys.getPrivate(), STORE_PASSWORD, new Certificate[] {cert, ca});
    }

    private static boolean covers(X509Certificate cert, List<String> hosts) throws CertificateParsingException {
        Set<String> named = new HashSet<>();
        if (cert.getSubjectAlternativeNames() != null) {
            for (List<?> n : cert.getSubjectAlternativeNames()) {
                named.add(String.valueOf(n.get(1)));
            }
        }
        for (String host : hosts) {
            byte[] ip = ipAddress(host);
            String canonical = host;
            if (ip != null) {
                try {
                    canonical = InetAddress.getByAddress(ip).getHostAddress();
                } catch (UnknownHostException e) {
                    return false;
                }
            }
            if (!named.contains(canonical) && !named.contains(host)) {
                return false;
            }
        }
        return true;
    }

    /** The address of an IP literal (v4, or v6 with or without brackets); null for a DNS name. */
    private static byte[] ipAddress(String host) {
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        boolean literal = h.contains(":") || h.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
        if (!literal) {
            return null;
        }
        try {
            // a literal is parsed, never looked up
            return InetAddress.getByName(h).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP address: " + host);
        }
    }

    private static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
        return generator.generateKeyPair();
    }

    private static X509Certificate sign(PrivateKey issuerKey, byte[] issuer, byte[] subject, KeyPair keys, Instant from,
                                        Instant to, byte[] extensions) throws GeneralSecurityException {
        byte[] algorithm = seq(oid(ECDSA_WITH_SHA256));
        byte[] tbs = seq(
                tlv(0xa0, tlv(0x02, BigInteger.TWO.toByteArray())),
                tlv(0x02, new BigInteger(63, new SecureRandom()).add(BigInteger.ONE).toByteArray()),
                algorithm,
                issuer,
                seq(time(from.minus(Duration.ofHours(1))), time(to)),
                subject,
                keys.getPublic().getEncoded(),
                tlv(0xa3, extensions));
        Signature signature = Signature.getInstance("SHA256withECDSA");
        signature.initSign(issuerKey);
        signature.update(tbs);
        byte[] signed = signature.sign();
        byte[] bits = new byte[signed.length + 1];
        System.arraycopy(signed, 0, bits, 1, signed.length);
        byte[] der = seq(tbs, algorithm, tlv(0x03, bits));
        return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new java.io.ByteArrayInputStream(der));
    }

    private static byte[] name(String commonName) {
        return seq(tlv(0x31, seq(oid(COMMON_NAME), tlv(0x0c, commonName.getBytes(StandardCharsets.UTF_8)))));
    }

    private static byte[] extension(int[] id, boolean critical, byte[] value) {
        List<byte[]> parts = new ArrayList<>();
        parts.add(oid(id));
        if (critical) {
            parts.add(new byte[] {0x01, 0x01, (byte) 0xff});
        }
        parts.add(tlv(0x04, value));
        return seq(parts.toArray(byte[][]::new));
    }

    /** UTCTime until 2049, GeneralizedTime from 2050 on (RFC 5280). */
    private static byte[] time(Instant instant) {
        var at = instant.atOffset(ZoneOffset.UTC);
        return at.getYear() < 2050
                ? tlv(0x17, DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").format(at).getBytes(StandardCharsets.US_ASCII))
                : tlv(0x18, DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'").format(at).getBytes(StandardCharsets.US_ASCII));
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
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return tlv(0x30, out.toByteArray());
    }

    private static byte[] tlv(int tag, byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
        out.write(tag);
        int length = content.length;
        if (length < 0x80) {
            out.write(length);
        } else {
            int bytes = length > 0xffff ? 3 : length > 0xff ? 2 : 1;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write(length >>> (8 * i));
            }
        }
        out.writeBytes(content);
        return out.toByteArray();
    }
}
