package com.bettercompute.adapters.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A query string read like a body: every parameter one of the route's, given once, each percent escape
 * whole and the decoded bytes UTF-8, and each value checked against its parameter's schema, so a typo or a
 * broken escape never silently does nothing and one answer names every bad parameter.
 */
final class QueryString {
    /** A query parameter of a route: its schema ({@link Schema.Text}, {@link Schema.Whole} or {@link Schema.Choice}). */
    record Param(String name, Schema schema, boolean required, String description) {
        static Param required(String name, Schema schema, String description) {
            return new Param(name, schema, true, description);
        }

        static Param optional(String name, Schema schema, String description) {
            return new Param(name, schema, false, description);
        }
    }

    /** The checked parameters of one request. */
    static final class Values {
        private final Map<String, Object> values;

        private Values(Map<String, Object> values) {
            this.values = values;
        }

        /** A text parameter, or null when it was not given. */
        String text(String name) {
            return (String) values.get(name);
        }

        /** An integer parameter, or the fallback when it was not given. */
        long whole(String name, long fallback) {
            Object v = values.get(name);
            return v == null ? fallback : (Long) v;
        }
    }

    private QueryString() {}

    /** The parameters of {@code query}; {@code INVALID_INPUT} naming every bad one ({@code in: query}). */
    static Values read(String query, List<Param> params) {
        Schema.Problems problems = new Schema.Problems("query");
        Map<String, String> raw = new HashMap<>();
        if (query != null && !query.isEmpty()) {
            for (String pair : query.split("&", -1)) {
                if (pair.isEmpty()) {
                    continue; // "a=1&&b=2" or a trailing "&": nothing given
                }
                int eq = pair.indexOf('=');
                String name = decode(eq < 0 ? pair : pair.substring(0, eq));
                String value = decode(eq < 0 ? "" : pair.substring(eq + 1));
                if (name == null || value == null) {
                    problems.add(name == null ? "" : com.bettercompute.domain.input.Input.shown(name), "is not valid percent-encoded UTF-8");
                } else if (params.stream().noneMatch(p -> p.name().equals(name))) {
                    problems.add(com.bettercompute.domain.input.Input.shown(name), "is not a parameter of this method");
                } else if (raw.putIfAbsent(name, value) != null) {
                    problems.add(name, "must be given once");
                }
            }
        }
        Map<String, Object> values = new HashMap<>();
        for (Param p : params) {
            String text = raw.get(p.name());
            if (text == null || text.isEmpty()) {
                if (p.required()) {
                    problems.add(p.name(), "is required");
                }
                continue;
            }
            int before = problems.size();
            Object value = text;
            if (p.schema() instanceof Schema.Whole whole) {
                value = whole.checkText(text, p.name(), problems);
            } else if (p.schema() instanceof Schema.Text t) {
                t.check(text, p.name(), problems);
            } else {
                p.schema().check(com.fasterxml.jackson.databind.node.TextNode.valueOf(text), p.name(), problems);
            }
            if (problems.size() == before) {
                values.put(p.name(), value);
            }
        }
        problems.throwIfAny();
        return new Values(values);
    }

    /** The decoded text, or null when an escape is broken or the bytes are not UTF-8. */
    private static String decode(String raw) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                if (i + 2 >= raw.length() || Character.digit(raw.charAt(i + 1), 16) < 0 || Character.digit(raw.charAt(i + 2), 16) < 0) {
                    return null;
                }
                bytes.write(Character.digit(raw.charAt(i + 1), 16) * 16 + Character.digit(raw.charAt(i + 2), 16));
                i += 2;
            } else if (c == '+') {
                bytes.write(' ');
            } else if (c < 0x80) {
                bytes.write(c);
            } else {
                return null;
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
