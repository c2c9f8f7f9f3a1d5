package com.bettercompute.adapters.http;

import com.bettercompute.domain.input.Input;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import com.fasterxml.jackson.databind.type.CollectionType;
import com.fasterxml.jackson.databind.type.MapType;

import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What binding one request body into its record saw besides the values: the fields given with the wrong
 * JSON type (bound as null, so the rest of the body is still read and every bad field can be named), the
 * fields given as an explicit {@code null}, and each object's unknown fields in the order they came.
 *
 * <p>Jackson's own deserializers only ever see a value of the JSON shape they expect: {@link #MODULE_MODIFIER}
 * wraps each of them in a check that records any other shape here, skips the value and binds null.
 */
final class Binding {
    static final String ATTRIBUTE = "bc.binding";

    private final Set<String> wrongType = new HashSet<>();
    private final Set<String> givenNull = new HashSet<>();
    private final Map<Object, List<String>> unknown = new IdentityHashMap<>();

    boolean wrongType(String path) {
        return !wrongType.isEmpty() && wrongType.contains(path);
    }

    boolean givenNull(String path) {
        return !givenNull.isEmpty() && givenNull.contains(path);
    }

    /** The unknown fields of one bound object (the record instance), in body order. */
    List<String> unknown(Object record) {
        List<String> names = unknown.isEmpty() ? null : unknown.get(record);
        return names == null ? List.of() : names;
    }

    private static Binding of(DeserializationContext ctxt) {
        return (Binding) ctxt.getAttribute(ATTRIBUTE);
    }

    /** The JSON shape each bound Java type takes; anything else is a wrong type for the field. */
    enum Shape {
        STRING, INTEGER, BOOLEAN, OBJECT, ARRAY;

        boolean accepts(JsonToken token) {
            return switch (this) {
                case STRING -> token == JsonToken.VALUE_STRING;
                case INTEGER -> token == JsonToken.VALUE_NUMBER_INT;
                case BOOLEAN -> token == JsonToken.VALUE_TRUE || token == JsonToken.VALUE_FALSE;
                case OBJECT -> token == JsonToken.START_OBJECT;
                case ARRAY -> token == JsonToken.START_ARRAY;
            };
        }

        static Shape of(Class<?> type) {
            if (type == String.class) {
                return STRING;
            }
            if (type == BigInteger.class) {
                return INTEGER;
            }
            if (type == Boolean.class || type == boolean.class) {
                return BOOLEAN;
            }
            if (type.isRecord()) {
                return OBJECT;
            }
            return null;
        }
    }

    /** Wraps every deserializer of a request type so it only sees its own shape. */
    static final BeanDeserializerModifier MODULE_MODIFIER = new BeanDeserializerModifier() {
        @Override
        public JsonDeserializer<?> modifyDeserializer(DeserializationConfig config, BeanDescription desc, JsonDeserializer<?> deser) {
            Shape shape = Shape.of(desc.getBeanClass());
            // requests hold only the types above; RequestsTest proves it, so nothing else is bound unchecked
            return shape == null ? deser : new Shaped(deser, shape);
        }

        @Override
        public JsonDeserializer<?> modifyCollectionDeserializer(DeserializationConfig config, CollectionType type,
                                                                BeanDescription desc, JsonDeserializer<?> deser) {
            return new Shaped(deser, Shape.ARRAY);
        }

        @Override
        public JsonDeserializer<?> modifyMapDeserializer(DeserializationConfig config, MapType type,
                                                         BeanDescription desc, JsonDeserializer<?> deser) {
            return new Shaped(deser, Shape.OBJECT);
        }
    };

    /** Records unknown fields against the object they appeared in, and skips their values. */
    static final DeserializationProblemHandler UNKNOWN_FIELDS = new DeserializationProblemHandler() {
        @Override
        public boolean handleUnknownProperty(DeserializationContext ctxt, JsonParser p, JsonDeserializer<?> deserializer,
                                             Object beanOrClass, String propertyName) throws IOException {
            of(ctxt).unknown.computeIfAbsent(beanOrClass, k -> new ArrayList<>(2)).add(propertyName);
            skip(p);
            return true;
        }
    };

    private static final class Shaped extends DelegatingDeserializer {
        private final Shape shape;

        Shaped(JsonDeserializer<?> delegate, Shape shape) {
            super(delegate);
            this.shape = shape;
        }

        @Override
        protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> newDelegatee) {
            return new Shaped(newDelegatee, shape);
        }

        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            if (!shape.accepts(p.currentToken())) {
                of(ctxt).wrongType.add(path(p));
                skip(p);
                return null;
            }
            return super.deserialize(p, ctxt);
        }

        @Override
        public Object getNullValue(DeserializationContext ctxt) throws JsonMappingException {
            JsonParser p = ctxt.getParser();
            if (p != null && p.currentToken() == JsonToken.VALUE_NULL) {
                of(ctxt).givenNull.add(path(p));
            }
            return null;
        }
    }

    /**
     * Skips the value the parser is on, decoding every string in it: a value not bound is still read
     * whole, so text that is not UTF-8 is refused where it is, wherever it is.
     */
    private static void skip(JsonParser p) throws IOException {
        JsonToken token = p.currentToken();
        if (token == JsonToken.VALUE_STRING) {
            p.getText();
            return;
        }
        if (token != JsonToken.START_OBJECT && token != JsonToken.START_ARRAY) {
            return;
        }
        for (int depth = 1; depth > 0; ) {
            JsonToken next = p.nextToken();
            if (next == null) {
                return;
            }
            if (next.isStructStart()) {
                depth++;
            } else if (next.isStructEnd()) {
                depth--;
            } else if (next == JsonToken.VALUE_STRING) {
                p.getText();
            }
        }
    }

    /** The path of the value the parser is on, as problems name it: {@code nodePools[0].labels.team}. */
    static String path(JsonParser p) {
        JsonStreamContext c = p.getParsingContext();
        if (p.currentToken() == JsonToken.START_OBJECT || p.currentToken() == JsonToken.START_ARRAY) {
            c = c.getParent();
        }
        return where(c);
    }

    private static String where(JsonStreamContext c) {
        if (c == null || c.inRoot()) {
            return "";
        }
        String parent = where(c.getParent());
        if (c.inArray()) {
            return parent + "[" + c.getCurrentIndex() + "]";
        }
        String name = Input.shown(String.valueOf(c.getCurrentName()));
        return parent.isEmpty() ? name : parent + "." + name;
    }
}
