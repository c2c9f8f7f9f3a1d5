package com.bettercompute.adapters.http.contract;

import com.networknt.schema.Error;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.OpenApi31;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Checks one HTTP exchange, request and response, against the OpenAPI 3.1 document a server serves, with
 * networknt's JSON Schema validator in its OpenAPI 3.1 dialect: a library of its own, not the server's
 * schema model, so the document and the server are held to each other from outside.
 *
 * <p>For an operation of the document: the status must be declared, the answer carry {@code X-Request-Id},
 * a JSON answer match the declared schema of its status; a request the document refuses must be refused
 * (4xx), and a request the document allows must not be refused for a rule of a field's own schema the
 * document does not state (a refusal naming {@code allowed}). A path the document has with another method
 * must answer 405 with {@code Allow}. Paths outside the document (the console, sign-in) are not checked.
 */
public final class ContractCheck {
    /** Numbers as they were written (1e-400 is no integer) and no deeper than the server reads (64 levels). */
    private static final ObjectMapper JSON = JsonMapper.builder(tools.jackson.core.json.JsonFactory.builder()
                    .streamReadConstraints(tools.jackson.core.StreamReadConstraints.builder().maxNestingDepth(64).build()).build())
            .enable(tools.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();
    private static final String DOCUMENT_URI = "https://contract.invalid/openapi.json";
    private static final Map<String, ContractCheck> SERVED = new ConcurrentHashMap<>();

    private final JsonNode document;
    private final SchemaRegistry registry;
    private final Map<String, com.networknt.schema.Schema> schemas = new ConcurrentHashMap<>();

    /** One request and its answer as they went over the wire. */
    public record Exchange(String method, String pathAndQuery, Map<String, List<String>> requestHeaders, byte[] requestBody,
                           int status, Map<String, List<String>> responseHeaders, byte[] responseBody) {
        String requestHeader(String name) {
            return header(requestHeaders, name);
        }

        String responseHeader(String name) {
            return header(responseHeaders, name);
        }

        private static String header(Map<String, List<String>> headers, String name) {
            for (Map.Entry<String, List<String>> e : headers.entrySet()) {
                if (e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
                    return e.getValue().get(0);
                }
            }
            return null;
        }
    }

    public ContractCheck(String documentText) {
        this.document = JSON.readTree(documentText);
        this.registry = SchemaRegistry.withDefaultDialect(OpenApi31.getInstance(),
                builder -> builder.schemas(Map.of(DOCUMENT_URI, documentText)));
    }

    /** The check of the document the server at {@code baseUrl} serves, fetched once per server. */
    public static ContractCheck served(String baseUrl) {
        return SERVED.computeIfAbsent(baseUrl, base -> {
            try {
                java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
                        java.net.http.HttpRequest.newBuilder(URI.create(base + "/api/openapi.json")).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    throw new IllegalStateException(base + " serves no OpenAPI document: " + r.statusCode());
                }
                return new ContractCheck(r.body());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        });
    }

    /** Holds exchanges with {@code baseUrl} (a proxy that does not serve the document itself) to this document. */
    public static void register(String baseUrl, String documentText) {
        SERVED.put(baseUrl, new ContractCheck(documentText));
    }

    /** Forgets the document of a server that stopped (its port may serve another next). */
    public static void forget(String baseUrl) {
        SERVED.remove(baseUrl);
    }

    /** Fails the test on any violation of the exchange. */
    public void assertHolds(Exchange e) {
        List<String> violations = violations(e);
        if (!violations.isEmpty()) {
            throw new AssertionError("The exchange breaks the served OpenAPI document: " + e.method() + " " + shorten(e.pathAndQuery())
                    + " -> " + e.status() + "\n  " + String.join("\n  ", violations)
                    + "\n  response: " + shorten(new String(e.responseBody(), StandardCharsets.UTF_8)));
        }
    }

    /** What is wrong with the exchange; empty when it keeps the document. */
    public List<String> violations(Exchange e) {
        List<String> out = new ArrayList<>();
        String path = e.pathAndQuery();
        String query = null;
        int q = path.indexOf('?');
        if (q >= 0) {
            query = path.substring(q + 1);
            path = path.substring(0, q);
        }
        JsonNode item = document.get("paths").get(path);
        if (item == null) {
            return out;
        }
        String method = e.method().toLowerCase(Locale.ROOT);
        JsonNode operation = item.get(method);
        if (operation == null) {
            if (e.status() != 405 || e.responseHeader("Allow") == null) {
                out.add("a method the path does not take must answer 405 with Allow, not " + e.status());
            }
            checkErrorBody(e, out);
            return out;
        }
        String pointer = "/paths/" + escape(path) + "/" + method;
        List<String> requestProblems = request(e, operation, pointer, query);

        JsonNode response = operation.get("responses").get(String.valueOf(e.status()));
        if (response == null) {
            out.add("the status " + e.status() + " is not declared for the operation");
            return out;
        }
        if (e.responseHeader("X-Request-Id") == null || e.responseHeader("X-Request-Id").isBlank()) {
            out.add("no X-Request-Id");
        }
        String responsePointer = pointer + "/responses/" + e.status();
        if (response.has("$ref")) {
            responsePointer = response.get("$ref").asString().substring(1);
            response = document.at(responsePointer);
        }
        String type = mediaType(e.responseHeader("Content-Type"));
        JsonNode content = response.path("content");
        if (!content.isMissingNode() && e.responseBody().length > 0) {
            if (type == null || !content.has(type)) {
                out.add("the answer's Content-Type " + type + " is not one the document declares: " + content.propertyNames());
            } else if (type.equals("application/json")) {
                validate(e.responseBody(), responsePointer + "/content/" + escape(type) + "/schema", "the answer", out);
            }
        }
        if (!requestProblems.isEmpty() && e.status() < 400) {
            out.add("the server accepted a request the document refuses: " + requestProblems);
        }
        if (requestProblems.isEmpty() && e.status() == 400) {
            for (String unstated : schemaRefusals(e.responseBody())) {
                out.add("a request the document allows was refused for a rule of its own schema: " + unstated);
            }
        }
        if (requestProblems.isEmpty() && e.status() == 415) {
            out.add("a request the document allows was refused as 415");
        }
        return out;
    }

    /** What the document says is wrong with the request (its query, headers and body). */
    private List<String> request(Exchange e, JsonNode operation, String pointer, String query) {
        List<String> problems = new ArrayList<>();
        Map<String, String> params = new HashMap<>();
        if (query != null && !query.isEmpty()) {
            for (String pair : query.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                try {
                    params.putIfAbsent(URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
                            URLDecoder.decode(eq < 0 ? "" : pair.substring(eq + 1), StandardCharsets.UTF_8));
                } catch (IllegalArgumentException malformed) {
                    problems.add("the query is not well-formed");
                }
            }
        }
        JsonNode parameters = operation.path("parameters");
        for (int i = 0; i < parameters.size(); i++) {
            JsonNode p = parameters.get(i);
            String name = p.get("name").asString();
            String value = p.get("in").asString().equals("header") ? e.requestHeader(name) : params.get(name);
            if (value == null || value.isEmpty()) {
                if (p.path("required").asBoolean(false)) {
                    problems.add(name + " is required");
                }
                continue;
            }
            JsonNode node = p.get("schema").path("type").asString("").equals("integer") && value.matches("-?[0-9]{1,30}")
                    ? JsonNodeFactory.instance.numberNode(new java.math.BigInteger(value)) : JsonNodeFactory.instance.stringNode(value);
            for (Error error : schema(pointer + "/parameters/" + i + "/schema").validate(node)) {
                problems.add(name + ": " + error.getMessage());
            }
        }
        JsonNode body = operation.get("requestBody");
        if (body != null) {
            String type = mediaType(e.requestHeader("Content-Type"));
            String declared = e.requestHeader("Content-Type");
            boolean utf8 = declared == null || !declared.contains(";")
                    || declared.toLowerCase(Locale.ROOT).replace(" ", "").contains("charset=utf-8");
            if (type == null || !body.get("content").has(type) || !utf8) {
                // JSON is UTF-8 (RFC 8259): application/json in another charset is another media type
                problems.add("the body's Content-Type " + declared + " is not one the document declares");
            } else {
                validate(e.requestBody(), pointer + "/requestBody/content/" + escape(type) + "/schema", "the body", problems);
            }
        }
        return problems;
    }

    private void validate(byte[] bytes, String pointer, String what, List<String> out) {
        JsonNode value;
        try {
            value = JSON.readTree(bytes);
        } catch (RuntimeException notJson) {
            out.add(what + " is not JSON");
            return;
        }
        if (value == null || value.isMissingNode()) {
            out.add(what + " is empty");
            return;
        }
        List<Error> errors;
        try {
            errors = schema(pointer).validate(value);
        } catch (RuntimeException | StackOverflowError unreadable) {
            // the validator reads some numbers as long or double (1E+400) and recurses per level: a value it cannot
            // read is one the document cannot be said to allow
            out.add(what + " cannot be read by the validator: " + unreadable);
            return;
        }
        for (Error error : errors) {
            out.add(what + " at " + error.getInstanceLocation() + ": " + error.getMessage());
        }
    }

    private void checkErrorBody(Exchange e, List<String> out) {
        out.addAll(errorBodyViolations(e.responseBody()));
    }

    /** What is wrong with an error body by the document's {@code ErrorBody}, for answers on paths the document lacks. */
    public List<String> errorBodyViolations(byte[] body) {
        List<String> out = new ArrayList<>();
        validate(body, "/components/schemas/ErrorBody", "the error body", out);
        return out;
    }

    private com.networknt.schema.Schema schema(String pointer) {
        return schemas.computeIfAbsent(pointer, p -> registry.getSchema(SchemaLocation.of(DOCUMENT_URI + "#" + p)));
    }

    /** The problems of a 400 that name the field's own schema ({@code allowed}): rules a schema can state. */
    private static List<String> schemaRefusals(byte[] body) {
        List<String> out = new ArrayList<>();
        try {
            JsonNode fields = JSON.readTree(body).at("/error/details/fields");
            for (JsonNode f : fields) {
                if (f.has("allowed")) {
                    out.add(f.toString());
                }
            }
        } catch (RuntimeException notJson) {
            // the answer's own check says so
        }
        return out;
    }

    private static String mediaType(String contentType) {
        return contentType == null ? null : contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    }

    /** A JSON pointer's segment. */
    private static String escape(String segment) {
        return segment.replace("~", "~0").replace("/", "~1");
    }

    private static String shorten(String s) {
        return s.length() > 600 ? s.substring(0, 600) + "…(" + s.length() + " characters)" : s;
    }

    /** The headers of a {@link java.net.http.HttpHeaders} as a plain map. */
    public static Map<String, List<String>> headers(java.net.http.HttpHeaders headers) {
        return new TreeMap<>(headers.map());
    }
}
