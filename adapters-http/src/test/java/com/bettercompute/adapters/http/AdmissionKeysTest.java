package com.bettercompute.adapters.http;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** The admission webhooks' CA and token key are made once and kept, owner-only; the serving certificate follows the hosts. */
class AdmissionKeysTest {
    @TempDir
    Path dir;

    @Test
    void the_ca_and_the_token_key_survive_a_restart_in_an_owner_only_file() throws Exception {
        AdmissionKeys first = AdmissionKeys.open(dir, List.of("localhost", "127.0.0.1"), Clock.systemUTC());
        AdmissionKeys again = AdmissionKeys.open(dir, List.of("localhost", "127.0.0.1"), Clock.systemUTC());
        assertEquals(first.caPem(), again.caPem());
        assertArrayEquals(first.pathTokenKey().getEncoded(), again.pathTokenKey().getEncoded());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(AdmissionKeys.FILE))));
        assertFalse(first.toString().contains("BEGIN"));
    }

    @Test
    void a_new_host_gets_a_serving_certificate_from_the_same_ca() throws Exception {
        AdmissionKeys first = AdmissionKeys.open(dir, List.of("localhost"), Clock.systemUTC());
        byte[] before = Files.readAllBytes(dir.resolve(AdmissionKeys.FILE));
        AdmissionKeys moved = AdmissionKeys.open(dir, List.of("localhost", "10.1.2.3", "platform.example"), Clock.systemUTC());
        assertEquals(first.caPem(), moved.caPem());
        assertFalse(java.util.Arrays.equals(before, Files.readAllBytes(dir.resolve(AdmissionKeys.FILE))));
    }
}
