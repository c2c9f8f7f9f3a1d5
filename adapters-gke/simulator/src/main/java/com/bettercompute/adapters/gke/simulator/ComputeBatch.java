package com.bettercompute.adapters.gke.simulator;

import io.grpc.Status;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * gcloud's multipart batch ({@code POST /batch/compute/v1}, {@code multipart/mixed}): each part an
 * {@code application/http} request, answered by a part of the same {@code Content-ID} prefixed {@code response-},
 * each holding its own HTTP status line and JSON body.
 */
final class ComputeBatch {
    static final String BOUNDARY = "batch_simulator";
    private static final Pattern BOUNDARY_PARAM = Pattern.compile("boundary=\"?([^\";]+)\"?");
    private static final Pattern REQUEST_LINE = Pattern.compile("^(GET|POST|PUT|PATCH|DELETE) (\\S+) HTTP/1\\.1$");

    /** One inner request's handling. */
    interface Inner {
        ComputeRest.Answer handle(String method, String path, String body);
    }

    private ComputeBatch() {
    }

    static ComputeRest.Answer answer(String body, String contentType, Inner inner) {
        Matcher b = contentType == null ? null : BOUNDARY_PARAM.matcher(contentType);
        if (b == null || !b.find()) {
            return ComputeRest.error(Status.INVALID_ARGUMENT.withDescription("A batch request is multipart/mixed with a boundary."));
        }
        String boundary = "--" + b.group(1);
        StringBuilder out = new StringBuilder();
        for (String part : parts(body, boundary)) {
            String[] headersAndRest = split(part);
            String contentId = header(headersAndRest[0], "Content-ID");
            String[] request = split(headersAndRest[1]);
            String[] lines = request[0].split("\r?\n");
            Matcher line = REQUEST_LINE.matcher(lines[0].trim());
            ComputeRest.Answer answer;
            if (!line.matches()) {
                answer = ComputeRest.error(Status.INVALID_ARGUMENT.withDescription("Not an HTTP request: " + lines[0]));
            } else {
                String target = line.group(2);
                int q = target.indexOf('?');
                String path = q < 0 ? target : target.substring(0, q);
                int at = path.indexOf(ComputeRest.PREFIX);
                answer = inner.handle(line.group(1), at < 0 ? path : path.substring(at), request[1].trim());
            }
            out.append("--").append(BOUNDARY).append("\r\nContent-Type: application/http\r\n");
            if (contentId != null) {
                String id = contentId.trim();
                out.append("Content-ID: ").append(id.startsWith("<") ? "<response-" + id.substring(1) : "response-" + id).append("\r\n");
            }
            out.append("\r\nHTTP/1.1 ").append(answer.status()).append(answer.status() < 300 ? " OK" : " Error")
                    .append("\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n").append(answer.body()).append("\r\n");
        }
        out.append("--").append(BOUNDARY).append("--\r\n");
        return new ComputeRest.Answer(200, out.toString());
    }

    private static List<String> parts(String body, String boundary) {
        List<String> parts = new ArrayList<>();
        for (String chunk : body.split(Pattern.quote(boundary))) {
            String trimmed = chunk.strip();
            if (!trimmed.isEmpty() && !trimmed.equals("--")) {
                parts.add(trimmed);
            }
        }
        return parts;
    }

    /** Headers and what follows the first blank line. */
    private static String[] split(String text) {
        Matcher blank = Pattern.compile("\r?\n\r?\n").matcher(text);
        if (!blank.find()) {
            return new String[]{text, ""};
        }
        return new String[]{text.substring(0, blank.start()), text.substring(blank.end())};
    }

    private static String header(String headers, String name) {
        for (String h : headers.split("\r?\n")) {
            int colon = h.indexOf(':');
            if (colon > 0 && h.substring(0, colon).trim().equalsIgnoreCase(name)) {
                return h.substring(colon + 1).trim();
            }
        }
        return null;
    }
}
