package com.bettercompute.adapters.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;

/**
 * The one JSON mapper of the HTTP adapter. A request body is read as one JSON value — anything else
 * (trailing data, duplicate keys, nesting deeper than {@value #MAX_DEPTH}) is {@code INVALID_INPUT} on the
 * body — then checked by its route's schema ({@link Request.Body}), which names every bad field, and only
 * then bound into its record.
 */
final class Json {
    static final int MAX_DEPTH = 64;

    static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
                    .build())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .build();

    private Json() {}

    /** The typed command of the body; {@code INVALID_INPUT} naming the body or every bad field. */
    static <C, R extends Request<C>> C command(byte[] body, Request.Body<R> spec) {
        Schema.Problems problems = new Schema.Problems("body");
        JsonNode node = body.length == 0 ? null : read(body);
        if (node == null || !node.isObject()) {
            // not an object: said once, and the method's required fields are named as missing, as for {}
            problems.add("", "the body must be a JSON object");
            node = MAPPER.createObjectNode();
        }
        spec.schema().checkFields(node, "", problems);
        problems.throwIfAny();
        Set<String> values = new HashSet<>();
        Set<String> nulls = new HashSet<>();
        node.fields().forEachRemaining(e -> (e.getValue().isNull() ? nulls : values).add(e.getKey()));
        try {
            return MAPPER.treeToValue(node, spec.type()).command(new Request.Given(values, nulls));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a body its schema passed cannot be bound into " + spec.type().getName(), e);
        }
    }

    private static JsonNode read(byte[] body) {
        try {
            return MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            // The parser's own message quotes parts of the body; say only where it broke.
            String where = e.getLocation() == null ? ""
                    : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
            String why = !(e instanceof StreamConstraintsException) ? "it is not well-formed JSON"
                    : String.valueOf(e.getOriginalMessage()).contains("nesting depth") ? "it is nested deeper than " + MAX_DEPTH + " levels"
                    : "a number, string or name in it is longer than the reader allows";
            throw invalidBody("the body cannot be read: " + why + where);
        } catch (IOException e) {
            throw invalidBody("the body could not be read");
        }
    }

    private static RuntimeException invalidBody(String problem) {
        Schema.Problems problems = new Schema.Problems("body");
        problems.add("", problem);
        problems.throwIfAny();
        throw new IllegalStateException("unreachable");
    }

    static byte[] write(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a response could not be written as JSON", e);
        }
    }
}
