package com.bettercompute.adapters.k8s.simulator;

import com.nimbusds.jose.jwk.RSAKey;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.AttributeType;
import io.fabric8.mockwebserver.crud.Value;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The simulated Kubernetes APIs on disk, in a state directory: {@code identity.json} (the server's port,
 * TLS key and certificate, ServiceAccount token signing key as a private JWK; owner-only, it holds secrets) and one
 * {@code clusters/<project>%2F<location>%2F<cluster>.json} per cluster someone talked to, holding each
 * stored object as the Kubernetes JSON the CRUD mock keeps, with the attributes it is filed under, and the mark every
 * uid given out until then is below ({@code uidsBelow}).
 * Every file is replaced whole and atomically (temp file, fsync, rename, fsync of the directory), before
 * the change it holds is answered.
 */
final class SavedApis {
    /** The attributes the CRUD mock files an object under (its collection's path and its name). */
    private static final List<String> KEY_ATTRIBUTES = List.of("api", "version", "plural", "namespace", "name", "kind");

    private final Path directory;
    private final Path clusters;
    private final KubernetesSerialization json;

    SavedApis(Path directory, KubernetesSerialization json) throws IOException {
        this.directory = Files.createDirectories(directory);
        this.clusters = Files.createDirectories(directory.resolve("clusters"));
        this.json = json;
    }

    /** One object as the CRUD mock holds it. */
    record StoredObject(AttributeSet key, String json) {}

    /**
     * The saved identity, or null when none was saved yet. An identity saved before ServiceAccount tokens were
     * JWTs (an HMAC {@code signingKey}, no {@code serviceAccountKey}) gets a new RSA key, saved at once: the
     * tokens it had signed stop working, everything else stays.
     */
    ServerIdentity identity() throws IOException {
        Path file = directory.resolve("identity.json");
        if (!Files.exists(file)) {
            return null;
        }
        Map<String, Object> saved = json.unmarshal(Files.readString(file, StandardCharsets.UTF_8), Map.class);
        Object jwk = saved.get("serviceAccountKey");
        RSAKey key;
        try {
            key = jwk == null ? null : RSAKey.parse(Obj.map(jwk));
        } catch (java.text.ParseException e) {
            throw new IOException("the ServiceAccount key in " + file + " cannot be read: " + e.getMessage(), e);
        }
        ServerIdentity identity = ServerIdentity.of(((Number) saved.get("port")).intValue(), (String) saved.get("privateKey"),
                (String) saved.get("certificate"), key == null ? ServerIdentity.newServiceAccountKey() : key);
        if (key == null) {
            identity(identity);
        }
        return identity;
    }

    void identity(ServerIdentity identity) throws IOException {
        Map<String, Object> saved = new LinkedHashMap<>();
        saved.put("port", identity.port());
        saved.put("certificate", identity.certificatePem());
        saved.put("privateKey", identity.privateKeyPem());
        saved.put("serviceAccountKey", identity.serviceAccountKey().toJSONObject());
        write(directory.resolve("identity.json"), json.asJson(saved), true);
    }

    /**
     * A cluster's saved objects, and a mark above every uid the simulator had given out when they were saved (deleted
     * objects' too); 0 in a file saved before the mark was kept.
     */
    record SavedCluster(List<StoredObject> objects, long uidsBelow) {}

    /** The saved objects of a cluster, or null when nothing was saved for it. */
    SavedCluster cluster(String clusterKey) throws IOException {
        Path file = file(clusterKey);
        if (!Files.exists(file)) {
            return null;
        }
        Object root = json.unmarshal(Files.readString(file, StandardCharsets.UTF_8), Object.class);
        long uidsBelow = 0;
        Object entries = root;
        if (root instanceof Map<?, ?> saved) {
            uidsBelow = ((Number) saved.get("uidsBelow")).longValue();
            entries = saved.get("objects");
        }
        List<StoredObject> out = new ArrayList<>();
        for (Object item : (List<?>) entries) {
            Map<String, Object> entry = Obj.map(item);
            @SuppressWarnings("unchecked")
            Map<String, Map<String, Object>> key = (Map<String, Map<String, Object>>) entry.get("key");
            List<Attribute> attributes = new ArrayList<>();
            key.forEach((name, attribute) -> {
                @SuppressWarnings("unchecked")
                List<String> values = (List<String>) attribute.get("values");
                attributes.add(new Attribute(name, values, AttributeType.valueOf((String) attribute.get("type"))));
            });
            out.add(new StoredObject(new AttributeSet(attributes), json.asJson(entry.get("object"))));
        }
        return new SavedCluster(out, uidsBelow);
    }

    void cluster(String clusterKey, Map<AttributeSet, String> stored, long uidsBelow) throws IOException {
        List<Map<String, Object>> objects = new ArrayList<>();
        stored.forEach((key, object) -> {
            Map<String, Map<String, Object>> attributes = new LinkedHashMap<>();
            for (String name : KEY_ATTRIBUTES) {
                Attribute attribute = key.getAttribute(name);
                if (attribute != null) {
                    attributes.put(name, Map.of("type", attribute.getType().name(),
                            "values", attribute.getValues().stream().map(Value::toString).toList()));
                }
            }
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("key", attributes);
            entry.put("object", json.unmarshal(object, Map.class));
            objects.add(entry);
        });
        Map<String, Object> saved = new LinkedHashMap<>();
        saved.put("uidsBelow", uidsBelow);
        saved.put("objects", objects);
        write(file(clusterKey), json.asJson(saved), false);
    }

    void forget(String clusterKey) throws IOException {
        Files.deleteIfExists(file(clusterKey));
        sync(clusters);
    }

    private Path file(String clusterKey) {
        return clusters.resolve(URLEncoder.encode(clusterKey, StandardCharsets.UTF_8) + ".json");
    }

    private static void write(Path file, String text, boolean secret) throws IOException {
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(temp);
        if (secret) {
            try {
                Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException | FileAlreadyExistsException e) {
                // not a POSIX file system: the directory's own permissions must do
            }
        }
        try (FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buffer = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
            out.force(true);
        }
        try {
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("the state directory cannot rename atomically: " + file.getParent(), e);
        }
        sync(file.getParent());
    }

    private static void sync(Path directory) throws IOException {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            if (!System.getProperty("os.name", "").startsWith("Windows")) {
                throw e;
            }
        }
    }
}
