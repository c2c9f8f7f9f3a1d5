package com.bettercompute.adapters.http;

import com.bettercompute.domain.input.FieldProblem;
import com.bettercompute.domain.input.Input;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A query string is read like a body: every parameter known and given once, each percent escape whole and
 * the decoded bytes UTF-8, so a typo or a broken escape never silently does nothing.
 */
final class QueryString {
    private static final Pattern INTEGER = Pattern.compile("-?[0-9]{1,19}");

    private QueryString() {}

    static void check(String query, Set<String> known) {
        if (query == null || query.isEmpty()) {
            return;
        }
        List<FieldProblem> problems = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String pair : query.split("&", -1)) {
            if (pair.isEmpty()) {
                continue; // "a=1&&b=2" or a trailing "&": nothing given
            }
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq));
            String value = decode(eq < 0 ? "" : pair.substring(eq + 1));
            if (name == null || value == null) {
                problems.add(new FieldProblem(name == null ? "" : name, "is not valid percent-encoded UTF-8"));
            } else if (!known.contains(name)) {
                problems.add(new FieldProblem(name, "is not a parameter of this method"));
            } else if (!seen.add(name)) {
                problems.add(new FieldProblem(name, "must be given once"));
            }
        }
        if (!problems.isEmpty()) {
            throw Input.invalid(problems);
        }
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

    /** An integer parameter in ASCII digits (Long.parseLong also takes other scripts' digits), or the fallback when absent. */
    static long number(String text, String name, long fallback) {
        if (text == null || text.isEmpty()) {
            return fallback;
        }
        if (!INTEGER.matcher(text).matches()) {
            throw Input.invalid(name, "must be an integer");
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw Input.invalid(name, "must be an integer");
        }
    }

    /** An integer parameter clamped into an int: beyond one it is out of range all the same, and the use case says by how much. */
    static int clamped(String text, String name, long fallback) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, number(text, name, fallback)));
    }
}
