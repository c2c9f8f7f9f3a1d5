package com.bettercompute.adapters.k8s.simulator;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS in front of the CRUD mock, with the key and certificate of a {@link ServerIdentity}: it accepts
 * on a loopback port, completes the handshake, and copies bytes both ways to the mock's plaintext
 * port. The mock cannot be given a certificate of ours, and the certificate must outlive restarts.
 * Two daemon threads per connection; a connection ends when either side closes.
 */
final class TlsFront implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TlsFront.class);
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final SSLServerSocket server;
    private final IntSupplier backendPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private TlsFront(SSLServerSocket server, IntSupplier backendPort) {
        this.server = server;
        this.backendPort = backendPort;
    }

    /**
     * Listens on {@code port} of the loopback address (0: any free one) and forwards each connection to the
     * port {@code backendPort} gives at that moment.
     */
    static TlsFront start(ServerIdentity identity, int port, IntSupplier backendPort) throws IOException {
        SSLContext context;
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            char[] password = new char[0];
            store.setKeyEntry("server", identity.tlsKey(), password, new Certificate[] {identity.certificate()});
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, password);
            context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
        } catch (GeneralSecurityException e) {
            throw new IOException("TLS cannot be set up with the simulated Kubernetes API's key: " + e.getMessage(), e);
        }
        SSLServerSocket server = (SSLServerSocket) context.getServerSocketFactory().createServerSocket();
        try {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        } catch (IOException e) {
            server.close();
            throw e;
        }
        TlsFront front = new TlsFront(server, backendPort);
        thread("accept", front::accept).start();
        return front;
    }

    int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("simulated Kubernetes API: accepting a connection failed: {}", e.getMessage());
                }
                continue;
            }
            thread("connection", () -> serve((SSLSocket) client)).start();
        }
    }

    private void serve(SSLSocket client) {
        open.add(client);
        Socket backend = null;
        try {
            client.startHandshake();
            backend = new Socket(InetAddress.getLoopbackAddress(), backendPort.getAsInt());
            backend.setTcpNoDelay(true);
            client.setTcpNoDelay(true);
            open.add(backend);
            Socket to = backend;
            thread("to-client", () -> pump(to, client)).start();
            pump(client, backend);
        } catch (IOException e) {
            // a client that gave up during the handshake, or the mock going away: nothing to answer
            closeBoth(client, backend);
        }
    }

    /** Copies {@code from} to {@code to} until one ends, then closes both. */
    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int read;
            while ((read = in.read(buffer)) >= 0) {
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException e) {
            // either side closed
        } finally {
            closeBoth(from, to);
        }
    }

    private void closeBoth(Socket a, Socket b) {
        for (Socket s : new Socket[] {a, b}) {
            if (s != null) {
                open.remove(s);
                try {
                    s.close();
                } catch (IOException ignored) {
                    // already closed
                }
            }
        }
    }

    private static Thread thread(String role, Runnable body) {
        Thread thread = new Thread(body, "sim-k8s-tls-" + role + "-" + THREADS.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            LOG.debug("simulated Kubernetes API: closing the listener: {}", e.getMessage());
        }
        for (Socket s : Set.copyOf(open)) {
            try {
                s.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }
}
