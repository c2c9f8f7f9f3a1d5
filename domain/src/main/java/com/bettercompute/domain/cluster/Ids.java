package com.bettercompute.domain.cluster;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Derived ids. A cluster's id is a hash of (tenant, caller, idempotency key), so a retry finds the same
 * row and the provider-side name is known before the provider is called — which is how a reconciler
 * adopts a cluster it created just before a crash.
 */
public final class Ids {
    private static final char[] CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz".toCharArray();
    public static final String CLUSTER_PREFIX = "kcl_";
    public static final String NODE_POOL_PREFIX = "knp_";
    public static final String PROVIDER_NAME_PREFIX = "bc-k-";
    public static final String VOLUME_PREFIX = "kvol_";
    public static final String VOLUME_STORAGE_PREFIX = "bc-v-";

    private Ids() {}

    public static String clusterId(String tenantId, String callerId, String idempotencyKey) {
        return CLUSTER_PREFIX + base32(sha256("cluster", tenantId, callerId, idempotencyKey), 26);
    }

    /** A node pool created with its cluster: derived from the cluster and the pool's name. */
    public static String nodePoolId(String clusterId, String nodePoolName) {
        return NODE_POOL_PREFIX + base32(sha256("nodepool", clusterId, nodePoolName), 26);
    }

    /**
     * A node pool added to an existing cluster by {@code kubernetesNodePools.create}: derived from the tenant,
     * the caller, the cluster and the idempotency key, so a retry finds the same pool.
     */
    public static String addedNodePoolId(String tenantId, String callerId, String clusterId, String idempotencyKey) {
        return NODE_POOL_PREFIX + base32(sha256("added-nodepool", tenantId, callerId, clusterId, idempotencyKey), 26);
    }

    /** A cluster's shared volume: derived from the cluster, so a crash between saving it and using it finds it again. */
    public static String volumeId(String clusterId) {
        return VOLUME_PREFIX + base32(sha256("volume", clusterId), 26);
    }

    /**
     * The shared volume's storage name at the provider: {@code bc-v-} and 24 characters of its id, a valid Filestore
     * instance id (lower case, a letter first, at most 63 characters), known before the provider is called.
     */
    public static String volumeStorageName(String volumeId) {
        return VOLUME_STORAGE_PREFIX + volumeId.substring(VOLUME_PREFIX.length(), VOLUME_PREFIX.length() + 24);
    }

    /** {@code bc-k-} and 24 characters of the id: a valid GKE name (40 characters at most, lower case). */
    public static String providerName(String clusterId) {
        return PROVIDER_NAME_PREFIX + clusterId.substring(CLUSTER_PREFIX.length(), CLUSTER_PREFIX.length() + 24);
    }

    /** The first {@code chars} characters, in lower-case Crockford base32, of the hash of {@code kind} and the parts. */
    public static String hashed(String kind, int chars, String... parts) {
        String[] all = new String[parts.length + 1];
        all[0] = kind;
        System.arraycopy(parts, 0, all, 1, parts.length);
        return base32(sha256(all), chars);
    }

    /** The first {@code chars} characters of the bytes in Crockford base32, lower case. */
    static String base32(byte[] bytes, int chars) {
        StringBuilder out = new StringBuilder(chars);
        int buffer = 0;
        int bits = 0;
        int i = 0;
        while (out.length() < chars) {
            if (bits < 5) {
                buffer = (buffer << 8) | (bytes[i++] & 0xff);
                bits += 8;
            }
            out.append(CROCKFORD[(buffer >> (bits - 5)) & 31]);
            bits -= 5;
        }
        return out.toString();
    }

    /** SHA-256 of the parts, each length-prefixed so ("a", "bc") and ("ab", "c") differ. */
    public static byte[] sha256(String... parts) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (String part : parts) {
                byte[] b = part.getBytes(StandardCharsets.UTF_8);
                digest.update((b.length + ":").getBytes(StandardCharsets.UTF_8));
                digest.update(b);
            }
            return digest.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    public static String sha256Hex(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            StringBuilder hex = new StringBuilder(64);
            for (byte b : d) {
                hex.append(Character.forDigit((b >> 4) & 15, 16)).append(Character.forDigit(b & 15, 16));
            }
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
