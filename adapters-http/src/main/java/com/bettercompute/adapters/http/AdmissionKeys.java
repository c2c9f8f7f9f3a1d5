package com.bettercompute.adapters.http;

import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
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
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The admission webhooks' own keys: the platform's CA (the {@code caBundle} every cluster's webhook
 * configurations carry), the serving certificate it signs for the hosts the clusters call, and the key the
 * clusters' path tokens are derived from. Made once and kept in one PKCS#12 file, {@value #FILE}, readable by
 * its owner only (the file's mode is the protection; its store password is not a secret), so the CA and the
 * tokens written into the clusters stay valid across restarts. The serving certificate is issued again, by
 * the same CA, when it does not name a host the clusters call or nears its end. EC P-256 keys from the
 * JDK; the X.509 v3 certificates built by Bouncy Castle and signed by the JDK. Nothing here is ever logged.
 */
public final class AdmissionKeys {
    public static final String FILE = "admission-keys.p12";
    private static final char[] STORE_PASSWORD = "better-compute-admission".toCharArray();
    private static final Duration CA_VALIDITY = Duration.ofDays(3650);
    private static final Duration SERVING_VALIDITY = Duration.ofDays(825);
    private static final Duration RENEW_BEFORE = Duration.ofDays(30);
    private static final int[] ECDSA_WITH_SHA256 = {1, 2, 840, 10045, 4, 3, 2};

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

    /** The CA and the serving certificate it signed, for tests to read. */
    X509Certificate[] servingChain() {
        try {
            return Arrays.stream(store.getCertificateChain("serving")).map(X509Certificate.class::cast).toArray(X509Certificate[]::new);
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
        X500Name name = commonName("better-compute admission CA");
        Instant now = clock.instant();
        try {
            JcaX509ExtensionUtils ids = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, serial(), notBefore(now),
                    Date.from(now.plus(CA_VALIDITY)), name, keys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false, ids.createSubjectKeyIdentifier(keys.getPublic()));
            X509Certificate cert = sign(builder, keys.getPrivate());
            store.setKeyEntry("ca", keys.getPrivate(), STORE_PASSWORD, new Certificate[] {cert});
        } catch (CertIOException e) {
            throw new GeneralSecurityException(e.getMessage(), e);
        }
    }

    private static void issueServing(KeyStore store, List<String> hosts, Clock clock) throws GeneralSecurityException {
        X509Certificate ca = (X509Certificate) store.getCertificate("ca");
        PrivateKey caKey = (PrivateKey) store.getKey("ca", STORE_PASSWORD);
        KeyPair keys = keyPair();
        GeneralName[] names = new GeneralName[hosts.size()];
        for (int i = 0; i < names.length; i++) {
            byte[] ip = ipAddress(hosts.get(i));
            names[i] = ip != null ? new GeneralName(GeneralName.iPAddress, new DEROctetString(ip))
                    : new GeneralName(GeneralName.dNSName, hosts.get(i));
        }
        Instant now = clock.instant();
        try {
            JcaX509ExtensionUtils ids = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(ca, serial(), notBefore(now),
                    Date.from(now.plus(SERVING_VALIDITY)), commonName("better-compute admission webhooks"), keys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names))
                    .addExtension(Extension.authorityKeyIdentifier, false, ids.createAuthorityKeyIdentifier(ca))
                    .addExtension(Extension.subjectKeyIdentifier, false, ids.createSubjectKeyIdentifier(keys.getPublic()));
            X509Certificate cert = sign(builder, caKey);
            store.setKeyEntry("serving", keys.getPrivate(), STORE_PASSWORD, new Certificate[] {cert, ca});
        } catch (CertIOException e) {
            throw new GeneralSecurityException(e.getMessage(), e);
        }
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

    /** A random positive serial of 63 bits (RFC 5280: at most 20 octets). */
    private static BigInteger serial() {
        return new BigInteger(63, new SecureRandom()).add(BigInteger.ONE);
    }

    /** An hour before now: a clock of the API server a little behind ours still finds the certificate valid. */
    private static Date notBefore(Instant now) {
        return Date.from(now.minus(Duration.ofHours(1)));
    }

    private static X500Name commonName(String name) {
        return new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, name).build();
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey issuerKey) throws GeneralSecurityException {
        try {
            // the JDK's own providers sign and read it back: Bouncy Castle builds the DER only, no provider is installed
            ContentSigner signer = new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey);
            return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e.getMessage(), e);
        }
    }
}
