package com.bettercompute.adapters.http;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The OpenAPI 3.1 document of the API, written from the {@link Router}'s table: each route's request schema
 * (the same {@link Schema} its body and query are checked with), its answer record, and every status it may
 * answer with the one error body. An answer's fields are all required; those marked {@link MayBeNull} may be
 * null. The document is served at {@value #PATH} as the bytes {@link #bytes} writes, and committed as
 * {@code docs/openapi.json}.
 */
final class OpenApi {
    static final String PATH = "/api/openapi.json";
    private static final String JSON = "application/json";
    /** The error statuses of every route; a route with a body adds {@link #BODY_ERRORS}. */
    private static final List<Integer> ERRORS = List.of(400, 401, 403, 404, 405, 409, 414, 422, 429, 431, 500, 503);
    private static final List<Integer> BODY_ERRORS = List.of(408, 413, 415);

    private OpenApi() {}

    /** The document as served: pretty-printed JSON and a final newline, so the committed copy reads as a file. */
    static byte[] bytes(Map<String, Object> document) {
        try {
            return (Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(document) + "\n")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("the OpenAPI document cannot be written", e);
        }
    }

    static Map<String, Object> document(List<Router.Route> routes) {
        Schema.Components components = new Schema.Components();
        Map<String, Object> paths = new TreeMap<>();
        for (Router.Route route : routes) {
            Map<String, Object> operation = new LinkedHashMap<>();
            operation.put("operationId", operationId(route.httpMethod(), route.path()));
            operation.put("summary", route.summary());
            operation.put("tags", List.of(tag(route.path())));
            List<Object> parameters = new ArrayList<>();
            for (QueryString.Param p : route.query()) {
                parameters.add(map("name", p.name(), "in", "query", "required", p.required(), "description", p.description(),
                        "schema", p.schema().render(components)));
            }
            if (route.streams()) {
                parameters.add(map("name", FeedStreams.LAST_EVENT_ID, "in", "header", "required", false,
                        "description", "With Accept: text/event-stream: the id of the last event received; the stream resumes after it",
                        "schema", map("type", "string", "pattern", "^[0-9]{1,18}$")));
            }
            if (!parameters.isEmpty()) {
                operation.put("parameters", parameters);
            }
            if (route.body() != null) {
                operation.put("requestBody", map("required", true,
                        "content", map(JSON, map("schema", route.body().schema().render(components)))));
            }
            Map<String, Object> content = new LinkedHashMap<>();
            content.put(JSON, map("schema", answer(route.answer(), components)));
            if (route.streams()) {
                content.put(FeedStreams.EVENT_STREAM, map("schema", map("type", "string",
                        "description", "Server-sent events: each event's id is the item's sequence and its data one item as JSON")));
            }
            Map<String, Object> responses = new TreeMap<>();
            responses.put("200", map("description", "OK", "headers", requestIdHeader(), "content", content));
            List<Integer> errors = new ArrayList<>(ERRORS);
            if (route.body() != null) {
                errors.addAll(BODY_ERRORS);
            }
            for (int status : errors) {
                responses.put(String.valueOf(status), map("$ref", "#/components/responses/Error"));
            }
            operation.put("responses", responses);
            @SuppressWarnings("unchecked")
            Map<String, Object> item = (Map<String, Object>) paths.computeIfAbsent(route.path(), p -> new TreeMap<>());
            item.put(route.httpMethod(), operation);
        }
        errorSchemas(components);
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("openapi", "3.1.0");
        doc.put("info", map("title", "better-compute API", "version", "1",
                "description", "The clusters API, the node pools API, events and usage, the shared volumes, and the GPU "
                        + "market's tenant and operator routes. Every refusal has the one error body; a field's problem says what is allowed beside the rule "
                        + "(allowed) and where the field was (in)."));
        doc.put("security", List.of(map("bearer", List.of())));
        doc.put("paths", paths);
        doc.put("components", map(
                "schemas", components.all(),
                "responses", map("Error", map("description", "The one error body; the status is its code's",
                        "headers", requestIdHeader(),
                        "content", map(JSON, map("schema", map("$ref", "#/components/schemas/ErrorBody"))))),
                "headers", map("RequestId", map("description", "The request's id, also in the server's log", "required", true,
                        "schema", map("type", "string"))),
                "securitySchemes", map("bearer", map("type", "http", "scheme", "bearer"))));
        return doc;
    }

    private static Map<String, Object> requestIdHeader() {
        return map(ApiServer.REQUEST_ID, map("$ref", "#/components/headers/RequestId"));
    }

    /** The one error body: its codes, and the fields of {@code INVALID_INPUT} with where each was and what it allows. */
    private static void errorSchemas(Schema.Components components) {
        components.put("ErrorBody", map("type", "object", "properties", map("error", map("$ref", "#/components/schemas/Error")),
                "required", List.of("error"), "additionalProperties", false));
        components.put("Error", map("type", "object", "properties", map(
                        "code", map("type", "string", "enum", HttpRefusal.codes()),
                        "message", map("type", "string", "description", "One sentence for a person"),
                        "details", map("$ref", "#/components/schemas/ErrorDetails")),
                "required", List.of("code", "message", "details"), "additionalProperties", false));
        components.put("ErrorDetails", map("type", "object", "description", "fields for INVALID_INPUT; other codes add their own keys, "
                        + "such as reason", "properties", map("fields", map("type", "array", "items", map("$ref", "#/components/schemas/FieldProblem")),
                        "reason", map("type", "string"))));
        components.put("FieldProblem", map("type", "object", "properties", map(
                        "field", map("type", "string", "description", "The field's path, such as nodePools[0].name; empty for the whole body or path"),
                        "in", map("type", "string", "enum", List.of("body", "query", "path", "header")),
                        "problem", map("type", "string", "description", "What is wrong, in words: what the field must be"),
                        "allowed", map("type", "object", "description", "The field's schema as this document states it, for a rule of the field's own")),
                "required", List.of("field", "in", "problem"), "additionalProperties", false));
    }

    private static String operationId(String method, String path) {
        String[] parts = path.split("/");
        String last = camel(parts[parts.length - 1]);
        if (path.startsWith("/api/k8s/") || path.startsWith(OperatorMarketRoutes.BASE)) {
            String scope = path.startsWith(OperatorMarketRoutes.BASE) ? "operatorMarket"
                    : path.equals(VolumeRoutes.VOLUMES) ? "storage" : "market";
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

    /** A reference to the answer record's schema, written into {@code components} with the answers it holds. */
    private static Map<String, Object> answer(Class<?> record, Schema.Components components) {
        String name = record.getSimpleName();
        if (!components.has(name)) {
            Map<String, Object> s = new LinkedHashMap<>();
            components.put(name, s);
            Map<String, Object> properties = new LinkedHashMap<>();
            List<String> required = new ArrayList<>();
            for (RecordComponent c : record.getRecordComponents()) {
                Map<String, Object> type = type(c.getGenericType(), components);
                properties.put(c.getName(), c.isAnnotationPresent(MayBeNull.class) ? nullable(type) : type);
                required.add(c.getName());
            }
            s.put("type", "object");
            s.put("properties", properties);
            s.put("required", required);
        }
        return map("$ref", "#/components/schemas/" + name);
    }

    private static Map<String, Object> nullable(Map<String, Object> type) {
        if (type.containsKey("$ref")) {
            return map("oneOf", List.of(type, map("type", "null")));
        }
        Map<String, Object> m = new LinkedHashMap<>(type);
        m.put("type", List.of(type.get("type"), "null"));
        return m;
    }

    /** The JSON type of an answer's field. */
    private static Map<String, Object> type(Type type, Schema.Components components) {
        if (type instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            Type[] args = p.getActualTypeArguments();
            if (List.class.isAssignableFrom(raw)) {
                return map("type", "array", "items", type(args[0], components));
            }
            if (Map.class.isAssignableFrom(raw)) {
                return args[1] == Object.class ? map("type", "object")
                        : map("type", "object", "additionalProperties", type(args[1], components));
            }
            throw new IllegalStateException("no JSON type for " + type);
        }
        Class<?> c = (Class<?>) type;
        if (c == String.class) {
            return map("type", "string");
        }
        if (c == Integer.class || c == int.class) {
            return map("type", "integer", "format", "int32");
        }
        if (c == Long.class || c == long.class) {
            // a generated client reads it into a 64-bit type
            return map("type", "integer", "format", "int64");
        }
        if (c == BigDecimal.class) {
            return map("type", "number");
        }
        if (c == Boolean.class || c == boolean.class) {
            return map("type", "boolean");
        }
        if (c.isRecord()) {
            return answer(c, components);
        }
        throw new IllegalStateException("no JSON type for " + c);
    }

    private static Map<String, Object> map(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }
}
