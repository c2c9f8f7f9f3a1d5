package com.bettercompute.adapters.http;

import com.bettercompute.domain.ErrorCode;
import com.bettercompute.domain.input.Input;
import io.javalin.http.Context;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The refusals of HTTP itself, before a request reaches a route's rules: each with its status and a code of
 * its own beside {@link ErrorCode}'s, in the one error body, with {@code X-Request-Id}. Jetty's own answers
 * (a URI or headers too large, a malformed request line or path) go through {@link JsonErrors}, so they too
 * are JSON in that shape rather than HTML pages.
 */
enum HttpRefusal {
    /** The path is served, not with this method: {@code Allow} names the methods that are. */
    METHOD_NOT_ALLOWED(405),
    /** The body did not arrive in time; the connection is closed. */
    REQUEST_TIMEOUT(408),
    /** The body is larger than the API takes. */
    PAYLOAD_TOO_LARGE(413),
    /** The request's URI is longer than the server reads. */
    URI_TOO_LONG(414),
    /** A body that is not {@code application/json}. */
    UNSUPPORTED_MEDIA_TYPE(415),
    /** The request's headers are larger than the server reads. */
    HEADERS_TOO_LARGE(431),
    /** The server is stopping: the request was not run; another replica, or this one once back, takes it. */
    SERVICE_UNAVAILABLE(503);

    final int status;

    HttpRefusal(int status) {
        this.status = status;
    }

    /** Every code an error body may carry: the domain's and these. */
    static List<String> codes() {
        List<String> codes = new java.util.ArrayList<>(Arrays.stream(ErrorCode.values()).map(Enum::name).toList());
        Arrays.stream(values()).map(Enum::name).forEach(codes::add);
        return codes;
    }

    void write(Context ctx, String message, Map<String, Object> details) {
        Responses.json(ctx, status, ErrorMapper.body(name(), message, details));
    }

    /** The refusal as an exception a route throws; {@link ApiServer} writes it. */
    Refused refused(String message, Map<String, Object> details) {
        return new Refused(this, message, details);
    }

    static final class Refused extends RuntimeException {
        final HttpRefusal refusal;
        final Map<String, Object> details;

        Refused(HttpRefusal refusal, String message, Map<String, Object> details) {
            super(message, null, false, false);
            this.refusal = refusal;
            this.details = details;
        }
    }

    /** A route with a body takes JSON only: a form, XML or text is 415, never read as JSON. */
    static void requireJson(Context ctx) {
        String type = ctx.header("Content-Type");
        String media = type == null ? "" : type.split(";", 2)[0].trim();
        boolean utf8 = type == null || !type.contains(";") || type.toLowerCase(java.util.Locale.ROOT).replace(" ", "").contains("charset=utf-8");
        if (!media.equalsIgnoreCase("application/json") || !utf8) {
            throw UNSUPPORTED_MEDIA_TYPE.refused("The body must be JSON sent as Content-Type: application/json (UTF-8), not "
                    + (type == null ? "without a Content-Type" : Input.shown(type)) + ".", Map.of("accepted", List.of("application/json")));
        }
    }

    /**
     * Jetty's error handler for what it refuses itself, before any route: the one JSON error body with its
     * own request id. A malformed path or request line is {@code INVALID_INPUT} naming the path.
     */
    static final class JsonErrors extends ErrorHandler {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            int status = response.getStatus();
            Object attribute = request.getAttribute(ERROR_STATUS);
            if (attribute instanceof Integer s) {
                status = s;
            }
            String code;
            String message;
            Map<String, Object> details = new LinkedHashMap<>();
            if (status == 414) {
                code = URI_TOO_LONG.name();
                message = "The request's URI is longer than the server reads.";
            } else if (status == 431) {
                code = HEADERS_TOO_LARGE.name();
                message = "The request's headers are larger than the server reads.";
            } else if (status == 413) {
                code = PAYLOAD_TOO_LARGE.name();
                message = "The body must be at most " + ApiServer.MAX_BODY_BYTES + " bytes.";
            } else if (status == 408) {
                code = REQUEST_TIMEOUT.name();
                message = "The request did not arrive in time.";
            } else if (status == 503) {
                // a request that comes on an open connection once a graceful stop has begun: not run, safe to send again
                code = SERVICE_UNAVAILABLE.name();
                message = "The server is stopping; the request was not run. Send it again.";
            } else if (status >= 400 && status < 500) {
                status = 400;
                code = ErrorCode.INVALID_INPUT.name();
                message = "The request could not be read: its request line, path or headers are malformed.";
                details.put("fields", List.of(Map.of("field", "", "in", "path", "problem",
                        "must be a well-formed path without encoded NUL, control characters or ambiguous segments")));
            } else {
                status = 500;
                code = ErrorCode.INTERNAL.name();
                message = "An unexpected error occurred.";
            }
            String requestId = ApiServer.requestId();
            if (status == 500) {
                details.put("requestId", requestId);
            }
            response.setStatus(status);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
            response.getHeaders().put(ApiServer.REQUEST_ID, requestId);
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            response.write(true, ByteBuffer.wrap(Json.write(ErrorMapper.body(code, message, details))), callback);
            return true;
        }
    }
}
