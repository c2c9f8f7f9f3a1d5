package com.bettercompute.adapters.persistence;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;

/**
 * The key that seals the secrets the database keeps (the ID token signing keys): 256 bits for AES-GCM, given to
 * every replica by its configuration and never written to the database. What the database keeps of it is its
 * {@link #id()}, a keyed hash that tells keys apart without revealing them, beside each value it sealed: a
 * replica given another key finds out before it reads anything, and says so naming ids only.
 *
 * <p>{@link #toString()} names the id only; the key's text leaves this class only through {@link #base64()},
 * for the file the embedded default keeps it in.
 */
public final class KeyEncryptionKey {
    /** AES-256. */
    public static final int BYTES = 32;
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;
    private final String id;

    private KeyEncryptionKey(byte[] bytes) {
        this.key = new SecretKeySpec(bytes, "AES");
        this.id = id(bytes);
    }

    /** A new random key. */
    public static KeyEncryptionKey random() {
        byte[] bytes = new byte[BYTES];
        RANDOM.nextBytes(bytes);
        return new KeyEncryptionKey(bytes);
    }

    /**
     * The key of its base64 text (standard or URL-safe alphabet, padding optional, surrounding space ignored),
     * such as {@code openssl rand -base64 32} prints.
     *
     * @param source what gave the text (an option, a file), for the message
     * @throws IllegalArgumentException naming {@code source} (never the text) when it is not 32 bytes in base64
     */
    public static KeyEncryptionKey fromBase64(String text, String source) {
        String trimmed = text == null ? "" : text.strip().replace('-', '+').replace('_', '/');
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(trimmed);
        } catch (IllegalArgumentException e) {
            bytes = new byte[0];
        }
        if (bytes.length != BYTES) {
            throw new IllegalArgumentException(source + " must be " + BYTES + " random bytes in base64 (such as `openssl rand -base64 "
                    + BYTES + "` prints)");
        }
        return new KeyEncryptionKey(bytes);
    }

    /** The key in base64, for the owner-only file the embedded default keeps it in; nowhere else. */
    public String base64() {
        return Base64.getEncoder().encodeToString(key.getEncoded());
    }

    /** Sixteen hex digits that name this key: HMAC-SHA256 of a fixed text under it, so they reveal nothing of it. */
    public String id() {
        return id;
    }

    /** {@code plain} encrypted and authenticated with {@code context} (what it belongs to), as base64 of nonce and ciphertext. */
    String seal(byte[] plain, String context) {
        try {
            byte[] nonce = new byte[NONCE_BYTES];
            RANDOM.nextBytes(nonce);
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(context.getBytes(StandardCharsets.UTF_8));
            byte[] sealed = cipher.doFinal(plain);
            return Base64.getEncoder().encodeToString(ByteBuffer.allocate(nonce.length + sealed.length).put(nonce).put(sealed).array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is part of every JDK", e);
        }
    }

    /**
     * What {@link #seal} sealed with the same {@code context}.
     *
     * @throws IllegalStateException when it was sealed under another key or context, or was altered (the message
     *         names neither the value nor the key)
     */
    byte[] open(String sealed, String context) {
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(sealed);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("a sealed value of " + context + " is not base64");
        }
        if (bytes.length <= NONCE_BYTES) {
            throw new IllegalStateException("a sealed value of " + context + " is too short");
        }
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, bytes, 0, NONCE_BYTES));
            cipher.updateAAD(context.getBytes(StandardCharsets.UTF_8));
            return cipher.doFinal(bytes, NONCE_BYTES, bytes.length - NONCE_BYTES);
        } catch (AEADBadTagException e) {
            throw new IllegalStateException("the sealed value of " + context + " does not open with key-encryption key " + id
                    + ": it was altered, or sealed under another key");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is part of every JDK", e);
        }
    }

    private static String id(byte[] bytes) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(bytes, "HmacSHA256"));
            byte[] digest = mac.doFinal("better-compute key-encryption key id".getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(Arrays.copyOf(digest, 8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is part of every JDK", e);
        }
    }

    @Override
    public String toString() {
        return "KeyEncryptionKey[" + id + "]";
    }
}
