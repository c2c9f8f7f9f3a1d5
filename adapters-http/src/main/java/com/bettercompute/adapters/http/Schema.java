package com.bettercompute.adapters.http;

import com.bettercompute.domain.input.FieldProblem;
import com.bettercompute.domain.input.Input;
import com.fasterxml.jackson.databind.JsonNode;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The one description of what a request may carry: each value's JSON type, pattern, lengths, range,
 * choices and default, and the rules between fields. The same value checks a request ({@link #check},
 * naming every bad field in words beside the rule it broke) and is rendered into the OpenAPI document
 * ({@link #render}), so no rule is enforced that the document does not state.
 *
 * <p>A rule JSON Schema cannot say (a CIDR block without host bits, minimum not above maximum, names unique
 * in a list) is stated in words in the document's {@code x-rules} of the schema that holds it.
 */
sealed interface Schema {
    /** Checks {@code value} (never null: absent and null are the caller's) found at {@code path}. */
    void check(JsonNode value, String path, Problems out);

    /** The JSON Schema of the value in the OpenAPI document (3.1: JSON Schema 2020-12). */
    Map<String, Object> render(Components components);

    /** What the value may be, in words for a person: the problem of a bad value is "must be" these. */
    String words();

    /** The problems of one request, each with where it was carried ({@code body}, {@code query}, {@code header}). */
    final class Problems {
        private final List<FieldProblem> list = new ArrayList<>();
        private final String in;

        Problems(String in) {
            this.in = in;
        }

        void add(String field, String problem) {
            list.add(new FieldProblem(field, problem, in, null));
        }

        /** A value that broke its schema: the problem beside the schema as the document states it. */
        void broke(String field, Schema schema) {
            list.add(new FieldProblem(field, "must be " + schema.words(), in, schema instanceof Obj ? null : schema.render(null)));
        }

        int size() {
            return list.size();
        }

        List<FieldProblem> list() {
            return list;
        }

        /** Throws {@code INVALID_INPUT} naming every problem, if there is any. */
        void throwIfAny() {
            if (!list.isEmpty()) {
                throw Input.invalid(list);
            }
        }
    }

    /** The document's {@code components.schemas}: each named object once, referenced by {@code $ref}. */
    final class Components {
        private final Map<String, Map<String, Object>> schemas = new java.util.TreeMap<>();
        private final Map<String, Obj> owners = new HashMap<>();

        Map<String, Object> ref(Obj obj) {
            Obj known = owners.get(obj.name());
            if (known == null) {
                owners.put(obj.name(), obj);
                schemas.put(obj.name(), new LinkedHashMap<>());
                schemas.put(obj.name(), obj.renderInline(this));
            } else if (known != obj) {
                throw new IllegalStateException("two request schemas are named " + obj.name());
            }
            return Map.of("$ref", "#/components/schemas/" + obj.name());
        }

        /** Adds a schema written elsewhere (the answers'); refuses a name taken by a request schema. */
        void put(String name, Map<String, Object> schema) {
            if (owners.containsKey(name)) {
                throw new IllegalStateException("a request schema and an answer are both named " + name);
            }
            schemas.put(name, schema);
        }

        boolean has(String name) {
            return schemas.containsKey(name);
        }

        Map<String, Map<String, Object>> all() {
            return schemas;
        }
    }

    /**
     * Text: at most {@code maxLength} characters (counted as code points, as JSON Schema counts them), no NUL
     * and no unpaired surrogate, matching {@code pattern} when there is one; {@code words} says so for a
     * person. {@code also}, when set, is a rule beyond the pattern ({@code alsoWords} in the document) that
     * returns the problem, or null.
     */
    record Text(int minLength, int maxLength, Pattern pattern, String words, String forbiddenPrefix,
                Function<String, String> also, String alsoWords) implements Schema {
        /**
         * Text a database and a JSON writer can keep: no NUL, no surrogate but in a pair. The same in Java (which
         * reads a pair as one code point outside the range) and in ECMAScript (which reads it as two units).
         */
        static final Pattern TEXT = Pattern.compile("^(?:[^\\u0000\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$");

        static Text of(int maxLength, Pattern pattern, String words) {
            return new Text(pattern == null ? 0 : 1, maxLength, pattern, words, null, null, null);
        }

        /** Any text of at most {@code maxLength} characters. */
        static Text any(int maxLength) {
            return new Text(0, maxLength, TEXT, "text of at most " + maxLength + " characters, without NUL characters or unpaired surrogates",
                    null, null, null);
        }

        Text notStartingWith(String prefix) {
            return new Text(minLength, maxLength, pattern, words + ", not starting with " + prefix, prefix, also, alsoWords);
        }

        Text also(String words, Function<String, String> rule) {
            return new Text(minLength, maxLength, pattern, this.words, forbiddenPrefix, rule, words);
        }

        @Override
        public void check(JsonNode value, String path, Problems out) {
            if (!value.isTextual()) {
                out.broke(path, this);
                return;
            }
            check(value.textValue(), path, out);
        }

        void check(String s, String path, Problems out) {
            int length = s.codePointCount(0, s.length());
            if (length < minLength || length > maxLength || !Input.isText(s) || (pattern != null && !pattern.matcher(s).matches())
                    || (forbiddenPrefix != null && s.startsWith(forbiddenPrefix))) {
                out.broke(path, this);
                return;
            }
            String problem = also == null ? null : also.apply(s);
            if (problem != null) {
                out.add(path, problem);
            }
        }

        @Override
        public Map<String, Object> render(Components components) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "string");
            if (minLength > 0) {
                m.put("minLength", minLength);
            }
            m.put("maxLength", maxLength);
            if (pattern != null) {
                m.put("pattern", pattern.pattern());
            }
            if (forbiddenPrefix != null) {
                m.put("not", Map.of("pattern", "^" + forbiddenPrefix));
            }
            if (components != null) {
                m.put("description", "Must be " + words + "." + (alsoWords == null ? "" : " Also: " + alsoWords + "."));
                if (alsoWords != null) {
                    m.put("x-rules", List.of(alsoWords));
                }
            }
            return m;
        }
    }

    /** An integer from {@code min} to {@code max}; {@code byDefault} when absent (null: none). */
    record Whole(long min, long max, Long byDefault) implements Schema {
        @Override
        public void check(JsonNode value, String path, Problems out) {
            // JSON Schema's integer is any number without a fraction (5.0 is one); the range is compared
            // first, so 1E400000000 is refused without being expanded
            if (!value.isNumber()) {
                out.broke(path, this);
                return;
            }
            java.math.BigDecimal v = value.decimalValue();
            if (v.compareTo(java.math.BigDecimal.valueOf(min)) < 0 || v.compareTo(java.math.BigDecimal.valueOf(max)) > 0
                    || v.signum() != 0 && v.stripTrailingZeros().scale() > 0) {
                out.broke(path, this);
            }
        }

        /** A query parameter's text: ASCII digits (Long.parseLong also takes other scripts' digits). */
        Long checkText(String text, String path, Problems out) {
            if (!text.matches("-?[0-9]{1,30}") || !inRange(new BigInteger(text))) {
                out.broke(path, this);
                return null;
            }
            return Long.parseLong(text);
        }

        private boolean inRange(BigInteger v) {
            return v.compareTo(BigInteger.valueOf(min)) >= 0 && v.compareTo(BigInteger.valueOf(max)) <= 0;
        }

        @Override
        public String words() {
            return "an integer from " + min + " to " + max;
        }

        @Override
        public Map<String, Object> render(Components components) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "integer");
            // what a generated client reads it into
            m.put("format", min < Integer.MIN_VALUE || max > Integer.MAX_VALUE ? "int64" : "int32");
            m.put("minimum", min);
            m.put("maximum", max);
            if (byDefault != null) {
                m.put("default", byDefault);
            }
            return m;
        }
    }

    /** {@code true} or {@code false}; {@code byDefault} when absent (null: none). */
    record Flag(Boolean byDefault) implements Schema {
        @Override
        public void check(JsonNode value, String path, Problems out) {
            if (!value.isBoolean()) {
                out.broke(path, this);
            }
        }

        @Override
        public String words() {
            return "true or false";
        }

        @Override
        public Map<String, Object> render(Components components) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "boolean");
            if (byDefault != null) {
                m.put("default", byDefault);
            }
            return m;
        }
    }

    /** One of the given strings, exactly; {@code byDefault} when absent (null: none). */
    record Choice(List<String> values, String byDefault) implements Schema {
        public Choice {
            values = List.copyOf(values);
        }

        static Choice of(java.util.Collection<String> values, String byDefault) {
            return new Choice(new ArrayList<>(values), byDefault);
        }

        @Override
        public void check(JsonNode value, String path, Problems out) {
            if (!value.isTextual() || !values.contains(value.textValue())) {
                out.broke(path, this);
            }
        }

        @Override
        public String words() {
            return "one of " + String.join(", ", values);
        }

        @Override
        public Map<String, Object> render(Components components) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "string");
            m.put("enum", values);
            if (byDefault != null) {
                m.put("default", byDefault);
            }
            return m;
        }
    }

    /**
     * A list of at most {@code maxItems} items, none null. With {@code uniqueBy}, no two items (objects) have
     * the same value of that field ({@code uniqueWords} is the problem of the second).
     */
    record ListOf(Schema items, int maxItems, String uniqueBy, String uniqueWords) implements Schema {
        static ListOf of(Schema items, int maxItems) {
            return new ListOf(items, maxItems, null, null);
        }

        @Override
        public void check(JsonNode value, String path, Problems out) {
            if (!value.isArray() || value.size() > maxItems) {
                out.broke(path, this);
                return;
            }
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < value.size(); i++) {
                JsonNode item = value.get(i);
                String where = path + "[" + i + "]";
                if (item.isNull()) {
                    out.broke(where, items);
                    continue;
                }
                int before = out.size();
                items.check(item, where, out);
                if (uniqueBy != null && out.size() == before && item.get(uniqueBy) != null && !seen.add(item.get(uniqueBy).asText())) {
                    out.add(where + "." + uniqueBy, uniqueWords);
                }
            }
        }

        @Override
        public String words() {
            return "a list of at most " + maxItems + " items";
        }

        @Override
        public Map<String, Object> render(Components components) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "array");
            m.put("maxItems", maxItems);
            if (components != null) {
                m.put("items", items.render(components));
                if (uniqueWords != null) {
                    m.put("x-rules", List.of("no two items have the same " + uniqueBy));
                }
            }
            return m;
        }
    }

    /** An object of at most {@code maxEntries} entries, each key {@code keys} and each value {@code values}. */
    record MapOf(Text keys, Schema values, int maxEntries) implements Schema {
        @Override
        public void check(JsonNode value, String path, Problems out) {
            if (!value.isObject() || value.size() > maxEntries) {
                out.broke(path, this);
                return;
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String where = path + "." + Input.shown(e.getKey());
                Problems keyProblems = new Problems(out.in);
                keys.check(e.getKey(), where, keyProblems);
                if (keyProblems.size() > 0) {
                    out.add(where, "is a key that must be " + keys.words());
                } else if (e.getValue().isNull()) {
                    out.broke(where, values);
                } else {
                    values.check(e.getValue(), where, out);
                }
            }
        }

        @Override
        public String words() {
            return "an object of at most " + maxEntries + " entries";
        }

        @Override
        public Map<String, Object> render(Components components) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "object");
            m.put("maxProperties", maxEntries);
            if (components != null) {
                m.put("propertyNames", keys.render(components));
                m.put("additionalProperties", values.render(components));
            }
            return m;
        }
    }

    /**
     * What {@code null} means for an optional field: {@link #ABSENT}, the same as leaving it out (every optional
     * field takes it, so a client that writes its unset fields as null is understood), or {@link #OFF}, turning
     * the thing off (the field's description says so). A required field never takes null.
     */
    enum Nulls { ABSENT, OFF }

    /** A field of an object. */
    record Prop(String name, Schema schema, boolean required, Nulls nulls, String description) {}

    /**
     * A rule between the fields of one object that JSON Schema cannot state: when every field it {@code reads}
     * was given and is valid, {@code broken} says whether the rule is broken, and {@code field} is named with
     * {@code problem}.
     */
    record Rule(String field, String problem, List<String> reads, Predicate<JsonNode> broken) {}

    /**
     * A named object: its fields in order, nothing else ({@code additionalProperties: false}), the rules
     * between them, and groups of fields of which at least one ({@code anyOf}) or exactly one
     * ({@code oneOf}) must be given.
     */
    record Obj(String name, List<Prop> props, List<Rule> rules, List<String> anyOf, List<String> oneOf) implements Schema {
        static Builder named(String name) {
            return new Builder(name);
        }

        /** Builds an object's schema field by field, in the order its fields are checked and documented. */
        static final class Builder {
            private final String name;
            private final List<Prop> props = new ArrayList<>();
            private final List<Rule> rules = new ArrayList<>();
            private List<String> anyOf = List.of();
            private List<String> oneOf = List.of();

            private Builder(String name) {
                this.name = name;
            }

            Builder required(String field, Schema schema) {
                props.add(new Prop(field, schema, true, null, null));
                return this;
            }

            Builder optional(String field, Schema schema) {
                props.add(new Prop(field, schema, false, Nulls.ABSENT, null));
                return this;
            }

            /** An optional field whose {@code null} turns the thing off, as {@code description} says. */
            Builder nullTurnsOff(String field, Schema schema, String description) {
                props.add(new Prop(field, schema, false, Nulls.OFF, description));
                return this;
            }

            Builder rule(String field, String problem, List<String> reads, Predicate<JsonNode> broken) {
                rules.add(new Rule(field, problem, reads, broken));
                return this;
            }

            /** At least one of these fields must be given (a change that changes nothing is refused). */
            Builder atLeastOneOf(String... fields) {
                anyOf = List.of(fields);
                return this;
            }

            /** Exactly one of these fields must be given. */
            Builder exactlyOneOf(String... fields) {
                oneOf = List.of(fields);
                return this;
            }

            Obj build() {
                return new Obj(name, List.copyOf(props), List.copyOf(rules), anyOf, oneOf);
            }
        }

        Prop prop(String field) {
            for (Prop p : props) {
                if (p.name().equals(field)) {
                    return p;
                }
            }
            return null;
        }

        @Override
        public void check(JsonNode value, String path, Problems out) {
            if (!value.isObject()) {
                out.broke(path, this);
                return;
            }
            checkFields(value, path, out);
        }

        /** Checks the fields of an object (the body itself, or {@code {}} standing for a body that is no object). */
        void checkFields(JsonNode value, String path, Problems out) {
            Set<String> bad = new HashSet<>();
            for (Prop p : props) {
                JsonNode v = value.get(p.name());
                String where = path.isEmpty() ? p.name() : path + "." + p.name();
                if (v == null || v.isNull()) {
                    if (p.required()) {
                        out.add(where, "is required");
                        bad.add(p.name());
                    }
                    continue;
                }
                int before = out.size();
                p.schema().check(v, where, out);
                if (out.size() > before) {
                    bad.add(p.name());
                }
            }
            for (Rule r : rules) {
                boolean ready = r.reads().stream().allMatch(f -> !bad.contains(f) && value.hasNonNull(f));
                if (ready && r.broken().test(value)) {
                    out.add(path.isEmpty() ? r.field() : path + "." + r.field(), r.problem());
                }
            }
            for (Iterator<String> it = value.fieldNames(); it.hasNext(); ) {
                String field = it.next();
                if (prop(field) == null) {
                    out.add((path.isEmpty() ? "" : path + ".") + Input.shown(field), "is not a field of this method");
                }
            }
            if (!anyOf.isEmpty() && bad.isEmpty() && anyOf.stream().noneMatch(value::has)) {
                out.add(path, "must name at least one of " + String.join(", ", anyOf));
            }
            if (!oneOf.isEmpty() && oneOf.stream().filter(value::hasNonNull).count() != 1) {
                out.add(path.isEmpty() ? oneOf.get(0) : path + "." + oneOf.get(0), "give exactly one of " + String.join(" and ", oneOf));
            }
        }

        @Override
        public String words() {
            return "an object";
        }

        @Override
        public Map<String, Object> render(Components components) {
            return components.ref(this);
        }

        Map<String, Object> renderInline(Components components) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "object");
            Map<String, Object> properties = new LinkedHashMap<>();
            List<String> required = new ArrayList<>();
            for (Prop p : props) {
                Map<String, Object> s = p.schema().render(components);
                if (!p.required()) {
                    s = nullable(s, p.nulls() == Nulls.OFF ? p.description() : "null is the same as leaving it out");
                }
                properties.put(p.name(), s);
                if (p.required()) {
                    required.add(p.name());
                }
            }
            m.put("properties", properties);
            if (!required.isEmpty()) {
                m.put("required", required);
            }
            m.put("additionalProperties", false);
            if (!anyOf.isEmpty()) {
                m.put("anyOf", anyOf.stream().map(f -> Map.of("required", List.of(f))).toList());
            }
            if (!oneOf.isEmpty()) {
                m.put("oneOf", oneOf.stream().map(f -> Map.of("required", List.of(f))).toList());
            }
            if (!rules.isEmpty()) {
                m.put("x-rules", rules.stream().map(r -> r.field() + " " + r.problem()).toList());
            }
            return m;
        }

        /** The schema or null: a reference is wrapped in {@code oneOf}, a plain type gains {@code "null"}. */
        @SuppressWarnings("unchecked")
        private static Map<String, Object> nullable(Map<String, Object> schema, String description) {
            Map<String, Object> m = new LinkedHashMap<>();
            if (schema.containsKey("$ref")) {
                m.put("oneOf", List.of(schema, Map.of("type", "null")));
                m.put("description", description);
                return m;
            }
            m.putAll(schema);
            m.put("type", List.of(schema.get("type"), "null"));
            if (schema.get("enum") instanceof List<?> values) {
                List<Object> withNull = new ArrayList<>((List<Object>) values);
                withNull.add(null);
                m.put("enum", withNull);
            }
            String said = (String) schema.get("description");
            m.put("description", said == null ? description.substring(0, 1).toUpperCase() + description.substring(1) + "."
                    : said + " " + description.substring(0, 1).toUpperCase() + description.substring(1) + ".");
            return m;
        }
    }
}
