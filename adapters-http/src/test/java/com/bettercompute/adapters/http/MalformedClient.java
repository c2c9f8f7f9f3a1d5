package com.bettercompute.adapters.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.List;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, one connection per request, so a test can send what {@code java.net.http}
 * refuses to: a query with broken percent escapes, any bytes in a header, a body the server stops reading.
 */
final class MalformedClient {
    private final int port;

    MalformedClient(int port) {
        this.port = port;
    }

    /** A response: status (-1 when none came), headers with lower-case names, the body; or what went wrong. */
    record Response(int status, Map<String, String> headers, byte[] body, String failure) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** The answer, once checked against the served OpenAPI document (a violation fails the test). */
    Response send(String method, String pathAndQuery, String token, String contentType, byte[] body) {
        return send(method, pathAndQuery, token, contentType, Map.of(), body);
    }

    /** As {@link #send(String, String, String, String, byte[])}, with more headers (names and values as given). */
    Response send(String method, String pathAndQuery, String token, String contentType, Map<String, String> extra, byte[] body) {
        Response r = send(method, pathAndQuery, token, contentType, extra, body, false);
        if (r.failure() == null && r.status() > 0) {
            Map<String, List<String>> sent = new LinkedHashMap<>();
            if (token != null) {
                sent.put("Authorization", List.of("Bearer " + token));
            }
            if (contentType != null) {
                sent.put("Content-Type", List.of(contentType));
            }
            extra.forEach((name, value) -> sent.put(name, List.of(value)));
            Map<String, List<String>> received = new LinkedHashMap<>();
            r.headers().forEach((k, v) -> received.put(k, List.of(v)));
            com.bettercompute.adapters.http.contract.ContractCheck.served("http://127.0.0.1:" + port).assertHolds(
                    new com.bettercompute.adapters.http.contract.ContractCheck.Exchange(method, pathAndQuery, sent, body, r.status(),
                            received, r.body()));
        }
        return r;
    }

    /** The body sent with {@code Transfer-Encoding: chunked} in chunks of 64 KiB, so no length is known up front. */
    Response sendChunked(String pathAndQuery, String token, byte[] body) {
        return send("POST", pathAndQuery, token, "application/json", Map.of(), body, true);
    }

    private Response send(String method, String pathAndQuery, String token, String contentType, Map<String, String> extra, byte[] body,
                          boolean chunked) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(30_000);
            StringBuilder head = new StringBuilder();
            head.append(method).append(' ').append(pathAndQuery).append(" HTTP/1.1\r\n");
            head.append("Host: 127.0.0.1:").append(port).append("\r\n");
            head.append("Connection: close\r\n");
            if (token != null) {
                head.append("Authorization: Bearer ").append(token).append("\r\n");
            }
            if (contentType != null) {
                head.append("Content-Type: ").append(contentType).append("\r\n");
            }
            extra.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
            if (chunked) {
                head.append("Transfer-Encoding: chunked\r\n");
            } else if (body.length > 0 || method.equals("POST") || method.equals("PUT") || method.equals("PATCH")) {
                head.append("Content-Length: ").append(body.length).append("\r\n");
            }
            head.append("\r\n");
            OutputStream out = socket.getOutputStream();
            String writeFailure = null;
            try {
                out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
                if (chunked) {
                    for (int at = 0; at < body.length; at += 65536) {
                        int n = Math.min(65536, body.length - at);
                        out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                        out.write(body, at, n);
                        out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    }
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                } else {
                    out.write(body);
                }
                out.flush();
            } catch (IOException e) {
                // the server may answer and close before it has read a body it refuses; read what it said
                writeFailure = e.toString();
            }
            byte[] raw;
            try {
                raw = readAll(socket.getInputStream());
            } catch (IOException e) {
                return new Response(-1, Map.of(), new byte[0], "no response: " + e + (writeFailure == null ? "" : "; writing: " + writeFailure));
            }
            return parse(raw, writeFailure);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[65536];
        for (int n; (n = in.read(buffer)) > 0; ) {
            all.write(buffer, 0, n);
        }
        return all.toByteArray();
    }

    private static Response parse(byte[] raw, String writeFailure) {
        int end = indexOf(raw, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), 0);
        if (end < 0) {
            return new Response(-1, Map.of(), raw, "no complete response head" + (writeFailure == null ? "" : "; writing: " + writeFailure));
        }
        String[] lines = new String(raw, 0, end, StandardCharsets.ISO_8859_1).split("\r\n");
        String[] statusLine = lines[0].split(" ", 3);
        int status = Integer.parseInt(statusLine[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
            }
        }
        byte[] body = java.util.Arrays.copyOfRange(raw, end + 4, raw.length);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(body);
        } else if (headers.containsKey("content-length")) {
            int length = Integer.parseInt(headers.get("content-length"));
            if (length < body.length) {
                body = java.util.Arrays.copyOf(body, length);
            }
        }
        return new Response(status, headers, body, null);
    }

    private static byte[] dechunk(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int at = 0;
        while (at < body.length) {
            int lineEnd = indexOf(body, "\r\n".getBytes(StandardCharsets.ISO_8859_1), at);
            if (lineEnd < 0) {
                break;
            }
            String size = new String(body, at, lineEnd - at, StandardCharsets.ISO_8859_1);
            int semicolon = size.indexOf(';');
            int n = Integer.parseInt((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
            if (n == 0) {
                break;
            }
            out.write(body, lineEnd + 2, Math.min(n, body.length - lineEnd - 2));
            at = lineEnd + 2 + n + 2;
        }
        return out.toByteArray();
    }

    private static int indexOf(byte[] haystack, byte[] needle, int from) {
        outer:
        for (int i = from; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
