package com.bettercompute.bootstrap.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One address in front of the replicas, as a TCP load balancer is: each connection goes whole to the replica
 * chosen when it is accepted, its bytes untouched (the {@code Host} a browser sends is the front door's, as behind
 * a real one). {@link #routeTo} chooses another replica and closes the connections open to the one before, so
 * every client connects again, to the new one.
 */
final class FrontDoor implements AutoCloseable {
    private final ServerSocket listening;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile int target;

    private FrontDoor(ServerSocket listening) {
        this.listening = listening;
        Thread acceptor = new Thread(this::accept, "front-door");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    static FrontDoor start() {
        try {
            return new FrontDoor(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The address people and clusters use: the platform's public URL. */
    String url() {
        return "http://127.0.0.1:" + listening.getLocalPort();
    }

    /** From now on every connection goes to {@code replica}; those open to another are closed. */
    void routeTo(RunningServer replica) {
        target = replica.server().port();
        closeOpen();
    }

    private void accept() {
        while (!listening.isClosed()) {
            Socket client;
            try {
                client = listening.accept();
            } catch (IOException e) {
                return;
            }
            try {
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
                open.add(client);
                open.add(upstream);
                pipe(client, upstream);
                pipe(upstream, client);
            } catch (IOException e) {
                // no replica behind the door now: the client sees its connection closed, as behind a real one
                quietly(client);
            }
        }
    }

    /** Copies one direction; at its end the other side is told no more comes (a half-close), and once both are done both close. */
    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
                to.shutdownOutput();
                if (from.isOutputShutdown()) {
                    done(from, to);
                }
            } catch (IOException e) {
                // closed by either side or by a new route
                done(from, to);
            }
        }, "front-door-pipe");
        t.setDaemon(true);
        t.start();
    }

    private void done(Socket a, Socket b) {
        quietly(a);
        quietly(b);
        open.remove(a);
        open.remove(b);
    }

    private static void quietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing is all that was asked
        }
    }

    @Override
    public void close() {
        try {
            listening.close();
        } catch (IOException e) {
            // closing is all that was asked
        }
        closeOpen();
    }

    private void closeOpen() {
        for (Socket s : open) {
            quietly(s);
        }
        open.clear();
    }
}
