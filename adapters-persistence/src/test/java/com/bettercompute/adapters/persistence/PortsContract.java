package com.bettercompute.adapters.persistence;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/** Opens the backend once per test class and empties it before each test. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PortsContract {
    protected Ports ports;

    protected abstract Ports open();

    @BeforeAll
    void openPorts() {
        ports = open();
    }

    @BeforeEach
    void wipe() {
        ports.wipe().run();
    }

    @AfterAll
    void closePorts() {
        ports.close();
    }
}
