package com.bettercompute.adapters.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.bettercompute.domain.input.Input;

import java.io.IOException;

/**
 * The one JSON mapper of the HTTP adapter. Bodies are read into plain JDK values (maps, lists, strings,
 * numbers, booleans) for the use cases' input readers; anything that is not one well-formed JSON value
 * — trailing data, duplicate keys, nesting deeper than {@value #MAX_DEPTH} — is {@code INVALID_INPUT}.
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

    static Object parse(byte[] body) {
        if (body.length == 0) {
            throw Input.invalid("", "the body must be a JSON object");
        }
        try {
            return MAPPER.readValue(body, Object.class);
        } catch (JsonProcessingException e) {
            // The parser's own message quotes parts of the body; say only where it broke.
            String where = e.getLocation() == null ? ""
                    : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
            String why = !(e instanceof com.fasterxml.jackson.core.exc.StreamConstraintsException) ? "it is not well-formed JSON"
                    : String.valueOf(e.getOriginalMessage()).contains("nesting depth") ? "it is nested deeper than " + MAX_DEPTH + " levels"
                    : "a number, string or name in it is longer than the reader allows";
            throw Input.invalid("", "the body cannot be read: " + why + where);
        } catch (IOException e) {
            throw Input.invalid("", "the body could not be read");
        }
    }

    static byte[] write(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a response could not be written as JSON", e);
        }
    }
}
