package com.bettercompute.adapters.http.contract;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Requests generated from an OpenAPI document alone: for each operation, its query and header parameters and its
 * body drawn from their schemas (types, {@code required}, {@code enum}, patterns, lengths, ranges, the groups of
 * {@code anyOf}/{@code oneOf}, {@code additionalProperties}), and mutations of them that the document refuses
 * (a required field left out, an unknown one added, a value of the wrong type, out of its range or off its
 * pattern, a wrong {@code Content-Type}, a body that is not JSON). Values a test knows to exist (a tenant, a
 * cluster's name) are mixed in by field name, so requests also get past the checks of state.
 */
public final class DocumentRequests {
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private final JsonNode document;
    private final Map<String, List<Object>> known;

    /** One request as it goes over the wire; {@code mutation} names what was broken, or is null. */
    public record Generated(String operation, String method, String path, String query, Map<String, String> headers,
                            String contentType, byte[] body, String mutation) {
        public String pathAndQuery() {
            return query.isEmpty() ? path : path + "?" + query;
        }

        @Override
        public String toString() {
            return operation + (mutation == null ? "" : " [" + mutation + "]") + ": " + method + " " + pathAndQuery() + " " + headers
                    + (body.length == 0 ? "" : " " + contentType + " " + new String(body, StandardCharsets.UTF_8));
        }
    }

    /** @param known values to use, half of the time, for the fields and parameters of these names */
    public DocumentRequests(String documentText, Map<String, List<Object>> known) {
        this.document = JSON.readTree(documentText);
        this.known = known;
    }

    /** Each operation of the document as {@code METHOD path}, with its id. */
    public Map<String, String> operations() {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> path : document.get("paths").properties()) {
            for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
                out.put(op.getValue().get("operationId").asString(), op.getKey().toUpperCase(java.util.Locale.ROOT) + " " + path.getKey());
            }
        }
        return out;
    }

    /** Requests over every operation: about {@code mutated} of them broken by one mutation. */
    public Arbitrary<Generated> requests(double mutated) {
        List<Arbitrary<Generated>> each = new ArrayList<>();
        for (Map.Entry<String, JsonNode> path : document.get("paths").properties()) {
            for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
                each.add(operation(path.getKey(), op.getKey(), op.getValue()));
            }
        }
        Arbitrary<Generated> valid = Arbitraries.oneOf(each);
        int percent = (int) Math.round(mutated * 100);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(100 - percent, valid),
                net.jqwik.api.Tuple.of(percent, valid.flatMap(this::mutations)));
    }

    private Arbitrary<Generated> operation(String path, String method, JsonNode op) {
        List<Arbitrary<Map.Entry<String, String>>> query = new ArrayList<>();
        List<Arbitrary<Map.Entry<String, String>>> headers = new ArrayList<>();
        for (JsonNode p : op.path("parameters")) {
            String name = p.get("name").asString();
            Arbitrary<String> value = value(name, p.get("schema")).map(DocumentRequests::text);
            Arbitrary<Map.Entry<String, String>> entry = value.map(v -> Map.entry(name, v));
            if (!p.path("required").asBoolean(false)) {
                entry = entry.injectNull(0.5);
            }
            (p.get("in").asString().equals("header") ? headers : query).add(entry);
        }
        Arbitrary<String> queryText = entries(query).map(DocumentRequests::queryString);
        Arbitrary<Map<String, String>> headerMap = entries(headers).map(list -> {
            Map<String, String> m = new LinkedHashMap<>();
            list.forEach(e -> m.put(e.getKey(), e.getValue()));
            return m;
        });
        JsonNode requestBody = op.get("requestBody");
        Arbitrary<Object> body = requestBody == null ? Arbitraries.just(null)
                : value(null, requestBody.at("/content/application~1json/schema"));
        String id = op.get("operationId").asString();
        String verb = method.toUpperCase(java.util.Locale.ROOT);
        return Combinators.combine(queryText, headerMap, body).as((q, h, b) -> new Generated(id, verb, path, q, h,
                b == null ? null : "application/json", b == null ? new byte[0] : JSON.writeValueAsBytes(b), null));
    }

    private static <T> Arbitrary<List<T>> entries(List<Arbitrary<T>> parts) {
        if (parts.isEmpty()) {
            return Arbitraries.just(List.of());
        }
        return Combinators.combine(parts).as(list -> list.stream().filter(java.util.Objects::nonNull).toList());
    }

    private static String queryString(List<Map.Entry<String, String>> entries) {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, String> e : entries) {
            if (!b.isEmpty()) {
                b.append('&');
            }
            b.append(URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8)).append('=')
                    .append(URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8));
        }
        return b.toString();
    }

    private static String text(Object value) {
        return value instanceof String s ? s : String.valueOf(value);
    }

    /** A value of the schema; for a field with known values, one of them half of the time. */
    private Arbitrary<Object> value(String field, JsonNode schema) {
        Arbitrary<Object> generated = value(schema);
        List<Object> hints = field == null ? null : known.get(field);
        return hints == null ? generated : Arbitraries.oneOf(generated, Arbitraries.of(hints));
    }

    private Arbitrary<Object> value(JsonNode schema) {
        if (schema.has("$ref")) {
            return value(document.at(schema.get("$ref").asString().substring(1)));
        }
        if (schema.has("enum")) {
            List<Object> values = new ArrayList<>();
            schema.get("enum").forEach(v -> values.add(v.isNull() ? null : v.isNumber() ? v.numberValue() : v.asString()));
            return Arbitraries.of(values);
        }
        if (schema.has("oneOf") && !schema.has("properties")) {
            List<Arbitrary<Object>> branches = new ArrayList<>();
            schema.get("oneOf").forEach(b -> branches.add(value(b)));
            return Arbitraries.oneOf(branches);
        }
        JsonNode type = schema.get("type");
        if (type != null && type.isArray()) {
            List<Arbitrary<Object>> branches = new ArrayList<>();
            for (JsonNode t : type) {
                if (t.asString().equals("null")) {
                    continue;
                }
                branches.add(typed(t.asString(), schema));
            }
            Arbitrary<Object> one = Arbitraries.oneOf(branches);
            return type.toString().contains("\"null\"") ? one.injectNull(0.1) : one;
        }
        if (type == null) {
            throw new IllegalArgumentException("no type to generate from: " + schema);
        }
        return typed(type.asString(), schema);
    }

    private Arbitrary<Object> typed(String type, JsonNode schema) {
        switch (type) {
            case "null":
                return Arbitraries.just(null);
            case "boolean":
                return Arbitraries.of(true, false).map(b -> b);
            case "integer": {
                BigInteger min = schema.has("minimum") ? schema.get("minimum").bigIntegerValue() : BigInteger.valueOf(-1000);
                BigInteger max = schema.has("maximum") ? schema.get("maximum").bigIntegerValue() : BigInteger.valueOf(1000);
                Arbitrary<BigInteger> inRange = Arbitraries.bigIntegers().between(min, max).shrinkTowards(min);
                return Arbitraries.oneOf(inRange, Arbitraries.of(min, max)).map(Function.identity());
            }
            case "number": {
                BigDecimal min = schema.has("minimum") ? schema.get("minimum").decimalValue() : BigDecimal.valueOf(-1000);
                BigDecimal max = schema.has("maximum") ? schema.get("maximum").decimalValue() : BigDecimal.valueOf(1000);
                return Arbitraries.bigDecimals().between(min, max).ofScale(3).map(Function.identity());
            }
            case "string":
                return string(schema).map(Function.identity());
            case "array": {
                int min = schema.path("minItems").asInt(0);
                int max = Math.min(schema.path("maxItems").asInt(min + 3), min + 3);
                Arbitrary<List<Object>> list = value(schema.get("items")).list().ofMinSize(min).ofMaxSize(max);
                return list.map(Function.identity());
            }
            case "object":
                return object(schema);
            default:
                throw new IllegalArgumentException("the type " + type + " is not generated");
        }
    }

    private Arbitrary<String> string(JsonNode schema) {
        int min = schema.path("minLength").asInt(0);
        int max = schema.path("maxLength").asInt(Math.max(min, 24));
        Arbitrary<String> s = schema.has("pattern") ? PatternStrings.of(schema.get("pattern").asString())
                : Arbitraries.strings().withCharRange(' ', '~').withChars("\u00e9\u4e2d").ofMinLength(min).ofMaxLength(Math.min(max, min + 40));
        if (schema.has("not") && schema.get("not").has("pattern")) {
            java.util.regex.Pattern not = java.util.regex.Pattern.compile(schema.get("not").get("pattern").asString());
            s = s.filter(v -> !not.matcher(v).find());
        }
        return s.filter(v -> v.codePointCount(0, v.length()) >= min && v.codePointCount(0, v.length()) <= max);
    }

    /** An object: every required property, each optional one half of the time, one group of {@code anyOf}/{@code oneOf}. */
    private Arbitrary<Object> object(JsonNode schema) {
        JsonNode properties = schema.path("properties");
        if (properties.isEmpty() && schema.get("additionalProperties") != null && schema.get("additionalProperties").isObject()) {
            Arbitrary<String> key = schema.has("propertyNames") ? string(schema.get("propertyNames")) : Arbitraries.strings().alpha().ofLength(5);
            int max = Math.min(schema.path("maxProperties").asInt(3), 3);
            return Arbitraries.maps(key, value(schema.get("additionalProperties"))).ofMaxSize(max).map(Function.identity());
        }
        Set<String> required = new LinkedHashSet<>();
        schema.path("required").forEach(r -> required.add(r.asString()));
        JsonNode groups = schema.has("oneOf") ? schema.get("oneOf") : schema.get("anyOf");
        boolean exclusive = schema.has("oneOf");
        int groupCount = groups == null ? 1 : groups.size();
        return Arbitraries.integers().between(0, groupCount - 1).flatMap(g -> {
            Set<String> must = new LinkedHashSet<>(required);
            Set<String> never = new LinkedHashSet<>();
            if (groups != null) {
                for (int i = 0; i < groups.size(); i++) {
                    for (JsonNode r : groups.get(i).path("required")) {
                        (i == g ? must : exclusive ? never : new LinkedHashSet<String>()).add(r.asString());
                    }
                }
                never.removeAll(must);
            }
            List<Arbitrary<Map.Entry<String, Object>>> parts = new ArrayList<>();
            for (Map.Entry<String, JsonNode> p : properties.properties()) {
                String name = p.getKey();
                if (never.contains(name)) {
                    continue;
                }
                Arbitrary<Map.Entry<String, Object>> entry = value(name, p.getValue()).map(v -> new java.util.AbstractMap.SimpleEntry<>(name, v));
                // a group's field must be present and, being what the group asks for, not null
                if (must.contains(name) && groups != null && !required.contains(name)) {
                    entry = entry.filter(e -> e.getValue() != null);
                }
                parts.add(must.contains(name) ? entry : entry.injectNull(0.5));
            }
            return entries(parts).map(list -> {
                Map<String, Object> m = new LinkedHashMap<>();
                list.forEach(e -> m.put(e.getKey(), e.getValue()));
                return (Object) m;
            });
        });
    }

    /** One mutation of a request that the document refuses (or, rarely, one that happens to keep it). */
    private Arbitrary<Generated> mutations(Generated g) {
        List<Arbitrary<Generated>> out = new ArrayList<>();
        out.add(Arbitraries.just(with(g, g.query() + (g.query().isEmpty() ? "" : "&") + "unknownParameter=1", g.contentType(), g.body(),
                "an unknown query parameter")));
        if (g.body().length > 0) {
            out.add(Arbitraries.of("text/plain", "application/xml", "application/x-www-form-urlencoded", "application/json; charset=utf-16")
                    .map(type -> with(g, g.query(), type, g.body(), "Content-Type " + type)));
            out.add(Arbitraries.of("{", "[]", "null", "\"text\"", "{\"a\":1,}", "")
                    .map(text -> with(g, g.query(), g.contentType(), text.getBytes(StandardCharsets.UTF_8), "body " + text)));
            Map<String, Object> body = JSON.readValue(g.body(), new tools.jackson.core.type.TypeReference<LinkedHashMap<String, Object>>() {});
            out.add(Arbitraries.just(withBody(g, put(body, "unknownField", 1), "an unknown field")));
            List<String> keys = new ArrayList<>(body.keySet());
            if (!keys.isEmpty()) {
                out.add(Arbitraries.of(keys).flatMap(key -> Arbitraries.of(wrongValues(body.get(key)))
                        .map(v -> withBody(g, put(body, key, v), key + " = " + JSON.writeValueAsString(v)))));
                out.add(Arbitraries.of(keys).map(key -> {
                    Map<String, Object> less = new LinkedHashMap<>(body);
                    less.remove(key);
                    return withBody(g, less, "without " + key);
                }));
            }
        }
        if (!g.query().isEmpty()) {
            List<String> pairs = List.of(g.query().split("&"));
            out.add(Arbitraries.of(pairs).flatMap(pair -> Arbitraries.of("", "x", "-1", "99999999999999999999", "%zz", "%00", "a".repeat(300))
                    .map(v -> with(g, g.query().replace(pair, pair.substring(0, pair.indexOf('=') + 1) + v), g.contentType(), g.body(),
                            "query " + pair.substring(0, pair.indexOf('=')) + "=" + v))));
            out.add(Arbitraries.of(pairs).map(pair -> with(g, String.join("&", pairs.stream().filter(p -> !p.equals(pair)).toList()),
                    g.contentType(), g.body(), "without " + pair)));
            out.add(Arbitraries.of(pairs).map(pair -> with(g, g.query() + "&" + pair, g.contentType(), g.body(), "twice " + pair)));
        }
        return Arbitraries.oneOf(out);
    }

    /** Values that break a field of this value's kind: another type, null, a length or range far off. */
    private static List<Object> wrongValues(Object value) {
        List<Object> out = new ArrayList<>();
        out.add(null);
        out.add(value instanceof String ? (Object) 7 : "7");
        out.add(value instanceof Map ? List.of() : Map.of());
        if (value instanceof String s) {
            out.add(s + "\u0000");
            out.add("x".repeat(5000));
            out.add("");
            out.add(" " + s);
        } else if (value instanceof Number) {
            out.add(new BigInteger("-99999999999999999999"));
            out.add(new BigDecimal("1.5"));
            out.add(Long.MAX_VALUE);
        } else if (value instanceof List) {
            out.add(List.of(List.of()));
        }
        return out;
    }

    private static Map<String, Object> put(Map<String, Object> body, String key, Object value) {
        Map<String, Object> m = new LinkedHashMap<>(body);
        m.put(key, value);
        return m;
    }

    private static Generated withBody(Generated g, Map<String, Object> body, String mutation) {
        return with(g, g.query(), g.contentType(), JSON.writeValueAsBytes(body), mutation);
    }

    private static Generated with(Generated g, String query, String contentType, byte[] body, String mutation) {
        return new Generated(g.operation(), g.method(), g.path(), query, g.headers(), contentType, body, mutation);
    }
}
