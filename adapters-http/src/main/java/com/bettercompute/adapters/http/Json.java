package com.bettercompute.adapters.http;

import com.bettercompute.domain.input.Input;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;

import java.io.IOException;

/**
 * The one JSON mapper of the HTTP adapter. A request body is bound straight into its method's record
 * ({@link Request}): anything that is not one well-formed JSON value — trailing data, duplicate keys,
 * nesting deeper than {@value #MAX_DEPTH} — is {@code INVALID_INPUT} on the body; a field of the wrong
 * type or an unknown field is noted ({@link Binding}) and named with the other bad fields.
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

    private static final ObjectMapper REQUESTS = MAPPER.copy()
            .registerModule(new SimpleModule("requests").setDeserializerModifier(Binding.MODULE_MODIFIER))
            .addHandler(Binding.UNKNOWN_FIELDS);

    private static final ClassValue<ObjectReader> READERS = new ClassValue<>() {
        @Override
        protected ObjectReader computeValue(Class<?> type) {
            return REQUESTS.readerFor(type);
        }
    };

    private Json() {}

    /** The typed command of the body; {@code INVALID_INPUT} naming the body or every bad field. */
    static <C> C command(byte[] body, Class<? extends Request<C>> type) {
        if (body.length == 0) {
            throw Input.invalid("", "the body must be a JSON object");
        }
        Binding binding = new Binding();
        Request<C> request = bind(body, type, binding);
        Fields fields = new Fields(binding);
        if (request == null) {
            // not an object: said once, and the method's required fields are named as missing, as for {}
            fields.body("the body must be a JSON object");
            request = bind(new byte[]{'{', '}'}, type, binding);
        }
        return request.command(fields);
    }

    private static <R> R bind(byte[] body, Class<R> type, Binding binding) {
        try {
            return READERS.get(type).withAttribute(Binding.ATTRIBUTE, binding).readValue(body);
        } catch (InvalidDefinitionException e) {
            throw new IllegalStateException("the request type " + type.getName() + " cannot be bound", e);
        } catch (JsonProcessingException thrown) {
            // binding wraps what the parser threw; the parser's own exception says what broke and where
            JsonProcessingException e = thrown;
            for (Throwable t = thrown.getCause(); t != null; t = t.getCause()) {
                if (t instanceof JsonProcessingException parser) {
                    e = parser;
                }
            }
            // The parser's own message quotes parts of the body; say only where it broke.
            String where = e.getLocation() == null ? ""
                    : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
            String why = !(e instanceof StreamConstraintsException) ? "it is not well-formed JSON"
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
