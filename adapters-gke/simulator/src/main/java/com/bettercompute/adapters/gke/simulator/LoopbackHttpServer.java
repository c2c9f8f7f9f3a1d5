package com.bettercompute.adapters.gke.simulator;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The JDK's HTTP server on the loopback address, as the simulators' REST APIs use it, with {@code TCP_NODELAY} on its
 * connections. The JDK's server writes a response's headers and its body as two segments and leaves Nagle's algorithm
 * on unless {@code sun.net.httpserver.nodelay} is set: the body then waits for the client's delayed ACK of the headers,
 * some 40 ms on every call, which made each simulated Compute Engine call (and gcloud's) take 50 to 150 ms. The
 * property is read once, when the JDK's server is first used in the process, so it is set here before the first
 * server is made (unless whoever runs the process set it).
 */
final class LoopbackHttpServer {
    static final String NO_DELAY = "sun.net.httpserver.nodelay";

    static {
        System.getProperties().putIfAbsent(NO_DELAY, "true");
    }

    private LoopbackHttpServer() {
    }

    static HttpServer create(int port) throws IOException {
        return HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
    }
}
