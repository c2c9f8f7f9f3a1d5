package com.bettercompute.adapters.http;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The OpenAPI 3.1 document of the API, written from the {@link Router}'s table and the record types the
 * routes bind their bodies into and write their answers from, so it describes what is served and cannot
 * drift from it. Request objects refuse unknown fields ({@code additionalProperties: false}); their
 * required fields are the ones marked {@link Required}.
 */
final class OpenApi {
    static final String PATH = "/api/openapi.json";
    private static final String JSON = "application/json";
    private static final Map<String, Integer> ERRORS = errors();
    /** The query parameters that are integers; every other one is a string. */
    private static final java.util.Set<String> INTEGER_PARAMETERS = java.util.Set.of("after", "limit");
    /** Where a schema notes its record while the document is written, to refuse two records of one name; removed after. */
    private static final String OWNER = "owner";

    private OpenApi() {}

    static Map<String, Object> document(List<Router.Route> routes) {
        Map<String, Map<String, Object>> schemas = new TreeMap<>();
        Map<String, Object> paths = new LinkedHashMap<>();
        for (Router.Route route : routes) {
            Map<String, Object> operation = new LinkedHashMap<>();
            operation.put("operationId", operationId(route.httpMethod(), route.path()));
            operation.put("summary", route.summary());
            operation.put("tags", List.of(tag(route.path())));
            if (!route.query().isEmpty()) {
                List<Object> parameters = new ArrayList<>();
                for (String name : route.query()) {
                    parameters.add(map("name", name, "in", "query", "required", false,
                            "schema", map("type", INTEGER_PARAMETERS.contains(name) ? "integer" : "string")));
                }
                operation.put("parameters", parameters);
            }
            if (route.body() != null) {
                operation.put("requestBody", map("required", true,
                        "content", map(JSON, map("schema", schema(route.body(), true, schemas)))));
            }
            Map<String, Object> responses = new LinkedHashMap<>();
            responses.put("200", map("description", "OK", "content", map(JSON, map("schema", schema(route.answer(), false, schemas)))));
            ERRORS.forEach((status, code) -> responses.put(String.valueOf(code), map("$ref", "#/components/responses/Error")));
            operation.put("responses", responses);
            @SuppressWarnings("unchecked")
            Map<String, Object> item = (Map<String, Object>) paths.computeIfAbsent(route.path(), p -> new LinkedHashMap<>());
            item.put(route.httpMethod(), operation);
        }
        schema(ErrorMapper.ErrorBody.class, false, schemas);
        schemas.values().forEach(s -> s.remove(OWNER));
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("openapi", "3.1.0");
        doc.put("info", map("title", "better-compute API", "version", "1",
                "description", "The clusters API of spec/kubernetes-clusters-api.md with the conventions of API.md."));
        doc.put("security", List.of(map("bearer", List.of())));
        doc.put("paths", paths);
        doc.put("components", map(
                "schemas", schemas,
                "responses", map("Error", map("description", "The one error body of API.md; the status is its code's",
                        "content", map(JSON, map("schema", map("$ref", "#/components/schemas/ErrorBody"))))),
                "securitySchemes", map("bearer", map("type", "http", "scheme", "bearer"))));
        return doc;
    }

    /** Every status an error can have, by its code (API.md's table). */
    private static Map<String, Integer> errors() {
        Map<String, Integer> m = new TreeMap<>();
        for (com.bettercompute.domain.ErrorCode code : com.bettercompute.domain.ErrorCode.values()) {
            m.putIfAbsent(String.valueOf(ErrorMapper.status(code)), ErrorMapper.status(code));
        }
        return m;
    }

    private static String operationId(String method, String path) {
        String[] parts = path.split("/");
        String last = camel(parts[parts.length - 1]);
        if (path.startsWith("/api/k8s/") || path.startsWith(OperatorMarketRoutes.BASE)) {
            String scope = path.startsWith(OperatorMarketRoutes.BASE) ? "operatorMarket" : "market";
            String verb = method.equals("get") ? "read" : method;
            return scope + Character.toUpperCase(verb.charAt(0)) + verb.substring(1)
                    + Character.toUpperCase(last.charAt(0)) + last.substring(1)
                    + (path.contains("/nodes/") ? "Node" : "");
        }
        if (path.startsWith(ClusterRoutes.BASE)) {
            return "kubernetesClusters" + Character.toUpperCase(last.charAt(0)) + last.substring(1);
        }
        if (path.startsWith(NodePoolRoutes.BASE)) {
            return "kubernetesNodePools" + Character.toUpperCase(last.charAt(0)) + last.substring(1);
        }
        return "read" + Character.toUpperCase(last.charAt(0)) + last.substring(1);
    }

    /** {@code out-of-service} as {@code outOfService}. */
    private static String camel(String segment) {
        StringBuilder b = new StringBuilder();
        boolean up = false;
        for (char c : segment.toCharArray()) {
            if (c == '-') {
                up = true;
            } else {
                b.append(up ? Character.toUpperCase(c) : c);
                up = false;
            }
        }
        return b.toString();
    }

    private static String tag(String path) {
        String[] parts = path.split("/");
        return path.startsWith("/api/compute/") ? parts[3] : parts[2];
    }

    /** A reference to the record's schema, written into {@code schemas} with the schemas it references. */
    private static Map<String, Object> schema(Class<?> record, boolean request, Map<String, Map<String, Object>> schemas) {
        String name = record.getSimpleName();
        Map<String, Object> known = schemas.get(name);
        if (known == null) {
            Map<String, Object> s = new LinkedHashMap<>();
            schemas.put(name, s);
            s.put(OWNER, record);
            s.put("type", "object");
            Map<String, Object> properties = new LinkedHashMap<>();
            List<String> required = new ArrayList<>();
            for (RecordComponent c : record.getRecordComponents()) {
                properties.put(c.getName(), type(c.getGenericType(), request, schemas));
                if (c.isAnnotationPresent(Required.class) || (!request && c.getType().isPrimitive())) {
                    required.add(c.getName());
                }
            }
            s.put("properties", properties);
            if (!required.isEmpty()) {
                s.put("required", required);
            }
            if (request) {
                s.put("additionalProperties", false);
            }
        } else if (!known.get(OWNER).equals(record)) {
            throw new IllegalStateException("two records are named " + name + ": " + record.getName() + " and " + known.get(OWNER));
        }
        return map("$ref", "#/components/schemas/" + name);
    }

    /** The JSON type of a record component; in an answer, a reference type may be null. */
    private static Map<String, Object> type(Type type, boolean request, Map<String, Map<String, Object>> schemas) {
        if (type instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            Type[] args = p.getActualTypeArguments();
            if (List.class.isAssignableFrom(raw)) {
                return map("type", "array", "items", type(args[0], request, schemas));
            }
            if (Map.class.isAssignableFrom(raw)) {
                return args[1] == Object.class ? map("type", "object")
                        : map("type", "object", "additionalProperties", type(args[1], request, schemas));
            }
            throw new IllegalStateException("no JSON type for " + type);
        }
        Class<?> c = (Class<?>) type;
        String json;
        if (c == String.class) {
            json = "string";
        } else if (c == BigInteger.class || c == Integer.class || c == Long.class || c == int.class || c == long.class) {
            json = "integer";
        } else if (c == BigDecimal.class) {
            json = "number";
        } else if (c == Boolean.class || c == boolean.class) {
            json = "boolean";
        } else if (c.isRecord()) {
            Map<String, Object> ref = schema(c, request, schemas);
            return request ? ref : map("oneOf", List.of(ref, map("type", "null")));
        } else {
            throw new IllegalStateException("no JSON type for " + c);
        }
        return request || c.isPrimitive() ? map("type", json) : map("type", List.of(json, "null"));
    }

    private static Map<String, Object> map(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }
}
