package com.bettercompute.adapters.persistence;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/** A contract on one port of one {@link Backend}: opened once per test class, emptied before each test. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class BackendContract<T> {
    private Backend<T> backend;
    protected T port;

    protected abstract Backend<T> open();

    @BeforeAll
    void openBackend() {
        backend = open();
        port = backend.port();
    }

    @BeforeEach
    void wipe() {
        backend.wipe().run();
    }

    @AfterAll
    void closeBackend() {
        backend.close();
    }
}
