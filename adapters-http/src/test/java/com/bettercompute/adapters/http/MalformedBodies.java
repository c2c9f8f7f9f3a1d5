package com.bettercompute.adapters.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.util.RawValue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Generates malformed requests for the clusters API from a seeded {@link Random}: mutations of a valid body
 * that each break at least one field (wrong types, out-of-range or fractional numbers, strings too long or
 * outside their pattern, unicode, nulls, missing and unknown fields), broken JSON text (duplicate keys,
 * trailing data, truncation, corrupted bytes, invalid UTF-8), huge and deeply nested bodies, and bad query
 * parameters of {@code GET /api/events}.
 *
 * <p>No create body it makes can be valid: each breaks a field, the JSON syntax or the size limit, so no
 * generated call may create a cluster.
 */
final class MalformedBodies {
    static final String PROJECT = "prj_01hzx8k3v4w5y6z7a8b9c0d1e3";
    static final String NETWORK = "net_01hzx8k3v4w5y6z7a8b9c0d1e4";
    static final String CLUSTER = "kcl_00000000000000000000000000";
    static final List<String> METHODS = List.of("create", "list", "get", "update", "delete");
    static final int BODY_LIMIT = 1024 * 1024;

    /** One request and what may come back: the statuses allowed and, for a broken field, the path it must name. */
    record Case(String label, String httpMethod, String path, byte[] body, String token, String contentType,
                Set<Integer> statuses, String field) {
        Case withToken(String t, Set<Integer> s) {
            return new Case(label + " [token " + (t == null ? "none" : t) + "]", httpMethod, path, body, t, contentType, s, null);
        }
    }

    private static final ObjectMapper PLAIN = new ObjectMapper();
    private static final ObjectMapper ESCAPED = JsonMapper.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

    /** Strings no pattern of the spec accepts (all its patterns are ASCII), some also invalid as text. */
    static final List<String> UNICODE = List.of(
            "acme\u0000", "\u0000", "ac\u0000me", "\uD800", "\uDC00acme", "acme\uD83D", "\uDE80\uD83D",
            "\u202Eemca", "\u200Facme", "\u05D0\u05D1\u05D2", "\u0627\u0644\u0639\u0631\u0628\u064A\u0629",
            "\uD83D\uDE80", "acme\uD83D\uDE80", "\uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67",
            "ac\u200Bme", "\uFF41\uFF43\uFF4D\uFF45", "\u0661\u0662\u0663", "e\u0301", "\uFEFFacme", "\uFFFF",
            "\uFFFE", "acme\n", " acme", "acme\t", "\u001F", "\u007F", "\u2028", "\u00A0", "I\u0307");

    private final Random random;
    private final List<Case> cases = new ArrayList<>();

    MalformedBodies(long seed) {
        this.random = new Random(seed);
    }

    // ---------------------------------------------------------------- valid bodies, the starting points

    static Map<String, Object> validBody(String method) {
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("tenantId", "acme");
        switch (method) {
            case "create" -> {
                b.put("projectId", PROJECT);
                b.put("poolId", ApiWorld.POOL);
                b.put("name", "fuzz");
                b.put("mode", "standard");
                b.put("location", "us-central1-a");
                b.put("releaseChannel", "stable");
                b.put("version", "1.30.2-gke.1");
                b.put("networkId", NETWORK);
                b.put("authorizedNetworks", new ArrayList<>(List.of("203.0.113.0/24", "10.0.0.0/8")));
                b.put("privateNodes", true);
                b.put("description", "a cluster");
                Map<String, Object> pool = new LinkedHashMap<>();
                pool.put("name", "gpu");
                pool.put("machineType", "a3-highgpu-8g");
                pool.put("nodeCount", 2);
                pool.put("autoscaling", new LinkedHashMap<>(Map.of("minNodes", 1, "maxNodes", 4)));
                pool.put("diskGiB", 100);
                pool.put("diskType", "pd-balanced");
                pool.put("spot", false);
                pool.put("accelerators", new LinkedHashMap<>(Map.of("type", "nvidia-h100-80gb", "count", 8)));
                pool.put("zones", new ArrayList<>(List.of("us-central1-a")));
                pool.put("labels", new LinkedHashMap<>(Map.of("team", "ml", "example.com/tier", "gold")));
                Map<String, Object> taint = new LinkedHashMap<>();
                taint.put("key", "nvidia.com/gpu");
                taint.put("value", "present");
                taint.put("effect", "NoSchedule");
                pool.put("taints", new ArrayList<>(List.of(taint)));
                b.put("nodePools", new ArrayList<>(List.of(pool)));
                b.put("idempotencyKey", "fuzz-key");
            }
            case "list" -> {
                b.put("poolId", ApiWorld.POOL);
                b.put("projectId", PROJECT);
                b.put("includeDeleted", true);
            }
            case "get", "delete" -> b.put("clusterId", CLUSTER);
            case "update" -> {
                b.put("clusterId", CLUSTER);
                b.put("version", "1.31");
                b.put("releaseChannel", "rapid");
                b.put("authorizedNetworks", new ArrayList<>(List.of("192.168.0.0/16")));
                b.put("description", "d");
            }
            default -> throw new IllegalArgumentException(method);
        }
        return b;
    }

    // ---------------------------------------------------------------- what each field is

    enum Kind { STRING, TEXT, ENUM, INT, BOOL, CIDRS, ZONES, LABELS, OBJECT, OBJECTS }

    /** A field of a method's input: where it is, what it holds, whether it is required, its bounds. */
    record Field(List<Object> path, Kind kind, boolean required, long min, long max) {
        String name() {
            StringBuilder s = new StringBuilder();
            for (Object p : path) {
                if (p instanceof Integer i) {
                    s.append('[').append(i).append(']');
                } else {
                    s.append(s.length() == 0 ? "" : ".").append(p);
                }
            }
            return s.toString();
        }
    }

    private static Field f(Kind kind, boolean required, long min, long max, Object... path) {
        return new Field(List.of(path), kind, required, min, max);
    }

    static List<Field> fields(String method) {
        List<Field> fs = new ArrayList<>();
        fs.add(f(Kind.STRING, true, 1, 128, "tenantId"));
        switch (method) {
            case "create" -> {
                fs.add(f(Kind.STRING, false, 1, 56, "projectId"));
                fs.add(f(Kind.STRING, true, 1, 57, "poolId"));
                fs.add(f(Kind.STRING, true, 1, 40, "name"));
                fs.add(f(Kind.ENUM, true, 0, 0, "mode"));
                fs.add(f(Kind.STRING, true, 1, 40, "location"));
                fs.add(f(Kind.ENUM, false, 0, 0, "releaseChannel"));
                fs.add(f(Kind.STRING, false, 1, 64, "version"));
                fs.add(f(Kind.STRING, false, 1, 56, "networkId"));
                fs.add(f(Kind.CIDRS, false, 0, 50, "authorizedNetworks"));
                fs.add(f(Kind.BOOL, false, 0, 0, "privateNodes"));
                fs.add(f(Kind.TEXT, false, 0, 256, "description"));
                fs.add(f(Kind.OBJECTS, false, 0, 10, "nodePools"));
                fs.add(f(Kind.STRING, true, 1, 40, "nodePools", 0, "name"));
                fs.add(f(Kind.STRING, true, 1, 63, "nodePools", 0, "machineType"));
                fs.add(f(Kind.INT, true, 0, 1000, "nodePools", 0, "nodeCount"));
                fs.add(f(Kind.OBJECT, false, 0, 0, "nodePools", 0, "autoscaling"));
                fs.add(f(Kind.INT, true, 0, 1000, "nodePools", 0, "autoscaling", "minNodes"));
                fs.add(f(Kind.INT, true, 1, 1000, "nodePools", 0, "autoscaling", "maxNodes"));
                fs.add(f(Kind.INT, false, 10, 65536, "nodePools", 0, "diskGiB"));
                fs.add(f(Kind.STRING, false, 1, 42, "nodePools", 0, "diskType"));
                fs.add(f(Kind.BOOL, false, 0, 0, "nodePools", 0, "spot"));
                fs.add(f(Kind.OBJECT, false, 0, 0, "nodePools", 0, "accelerators"));
                fs.add(f(Kind.STRING, true, 1, 63, "nodePools", 0, "accelerators", "type"));
                fs.add(f(Kind.INT, true, 1, 16, "nodePools", 0, "accelerators", "count"));
                fs.add(f(Kind.ZONES, false, 0, 10, "nodePools", 0, "zones"));
                fs.add(f(Kind.LABELS, false, 0, 64, "nodePools", 0, "labels"));
                fs.add(f(Kind.OBJECTS, false, 0, 32, "nodePools", 0, "taints"));
                fs.add(f(Kind.STRING, true, 1, 253, "nodePools", 0, "taints", 0, "key"));
                fs.add(f(Kind.STRING, false, 0, 63, "nodePools", 0, "taints", 0, "value"));
                fs.add(f(Kind.ENUM, true, 0, 0, "nodePools", 0, "taints", 0, "effect"));
                fs.add(f(Kind.STRING, true, 1, 128, "idempotencyKey"));
            }
            case "list" -> {
                fs.add(f(Kind.STRING, false, 1, 57, "poolId"));
                fs.add(f(Kind.STRING, false, 1, 56, "projectId"));
                fs.add(f(Kind.BOOL, false, 0, 0, "includeDeleted"));
            }
            case "get", "delete" -> fs.add(f(Kind.STRING, true, 1, 56, "clusterId"));
            case "update" -> {
                fs.add(f(Kind.STRING, true, 1, 56, "clusterId"));
                fs.add(f(Kind.STRING, false, 1, 64, "version"));
                fs.add(f(Kind.ENUM, false, 0, 0, "releaseChannel"));
                fs.add(f(Kind.CIDRS, false, 0, 50, "authorizedNetworks"));
                fs.add(f(Kind.TEXT, false, 0, 256, "description"));
            }
            default -> throw new IllegalArgumentException(method);
        }
        return fs;
    }

    // ---------------------------------------------------------------- values that break a field

    private <T> T pick(List<T> list) {
        return list.get(random.nextInt(list.size()));
    }

    private Object wrongTypeFor(Kind kind) {
        List<Object> all = new ArrayList<>(List.of(1, 0, -1, new BigDecimal("1.5"), raw("1e309"), raw("-0"), true, false,
                "text", "", List.of(), List.of("a"), List.of(1, 2), Map.of(), Map.of("a", "b"), List.of(List.of())));
        all.removeIf(v -> switch (kind) {
            case STRING, TEXT, ENUM -> v instanceof String;
            case INT -> v instanceof Integer || (v instanceof RawValue r && r.rawValue().equals("-0"));
            case BOOL -> v instanceof Boolean;
            case CIDRS, ZONES, OBJECTS -> v instanceof List<?> l && l.isEmpty();
            case LABELS, OBJECT -> v instanceof Map<?, ?> m && m.isEmpty();
        });
        return pick(all);
    }

    private static RawValue raw(String text) {
        return new RawValue(text);
    }

    /** A value for the field that the API must refuse. */
    private Object invalidValue(Field field) {
        if (field.required() && random.nextInt(12) == 0) {
            return null;
        }
        if (random.nextInt(4) == 0) {
            return wrongTypeFor(field.kind());
        }
        return switch (field.kind()) {
            case STRING -> switch (random.nextInt(5)) {
                case 0 -> "a".repeat((int) field.max() + 1 + random.nextInt(3));
                case 1 -> random.nextInt(8) == 0 ? "x".repeat(1_000_000) : pick(UNICODE) + "a".repeat((int) field.max());
                default -> pick(UNICODE);
            };
            case TEXT -> switch (random.nextInt(4)) {
                case 0 -> "d".repeat((int) field.max() + 1);
                case 1 -> "text with NUL \u0000 in it";
                case 2 -> "unpaired " + pick(List.of("\uD800", "\uDBFF", "\uDC00", "\uDFFF")) + " surrogate";
                default -> pick(List.of("\uD83D", "a\uDE80b", "\u0000"));
            };
            case ENUM -> pick(List.of("Standard", "STANDARD", "standard ", "Regular", "noschedule", "NOSCHEDULE", "unknown",
                    "standard\u0000", "\uD83D\uDE80", "\u202Estable", "autopilot\uD800"));
            case INT -> pick(intInvalid(field.min(), field.max()));
            case BOOL -> pick(List.of("true", "false", 1, 0, "yes", raw("1.0"), List.of(true)));
            case CIDRS -> switch (random.nextInt(4)) {
                case 0 -> new ArrayList<>(java.util.Collections.nCopies((int) field.max() + 1 + random.nextInt(5), "10.0.0.0/8"));
                case 1 -> pick(List.of(java.util.Arrays.asList("10.0.0.0/8", null), List.of(1), List.of(List.of("10.0.0.0/8"))));
                default -> List.of(pick(List.of("10.0.0.1/8", "256.0.0.0/8", "1.2.3.4/33", "01.2.3.0/24", "1.2.3.0/024",
                        "1.2.3.0", "1.2.3.0/", "/8", "::1/128", "\u0661.\u0662.\u0663.\u0664/8", "1.2.3.4/32\u0000",
                        "1.2.3.0/24 ", "999.999.999.999/99", "1.2.3.4/99", "a.b.c.d/8", "10.0.0.0/8\uD800")));
            };
            case ZONES -> switch (random.nextInt(3)) {
                case 0 -> new ArrayList<>(java.util.Collections.nCopies(11, "us-central1-a"));
                case 1 -> java.util.Arrays.asList("us-central1-a", null);
                default -> List.of(pick(UNICODE));
            };
            case LABELS -> switch (random.nextInt(4)) {
                case 0 -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    for (int i = 0; i < 65; i++) {
                        m.put("k" + i, "v");
                    }
                    yield m;
                }
                case 1 -> mapOf(pick(UNICODE), "v");
                case 2 -> mapOf(random.nextBoolean() ? "" : "k".repeat(254 + random.nextInt(2000)), "v");
                default -> mapOf("team", pick(List.of(1, true, List.of(), Map.of(), "v".repeat(64), "-v", "\uD83D\uDE80", "\u0000")));
            };
            case OBJECT -> switch (random.nextInt(3)) {
                case 0 -> mapOf("unknownInner", 1);
                case 1 -> mapOf("minNodes", 5, "maxNodes", 3, "type", "x", "count", 1);
                default -> Map.of();
            };
            case OBJECTS -> switch (random.nextInt(3)) {
                case 0 -> new ArrayList<>(java.util.Collections.nCopies((int) field.max() + 1, Map.of()));
                case 1 -> java.util.Arrays.asList((Object) null);
                default -> List.of(pick(List.of(1, "x", List.of(), true)));
            };
        };
    }

    private List<Object> intInvalid(long min, long max) {
        List<Object> out = new ArrayList<>(List.of(min - 1, max + 1, Long.MAX_VALUE, Long.MIN_VALUE,
                new BigInteger("123456789012345678901234567890"), new BigInteger("-123456789012345678901234567890"),
                new BigDecimal("1.5"), raw(min + ".5"), raw((max + 1) + ".0"), raw("1E400"), raw("1e309"), raw("-1e309"),
                raw("1e-400"), raw("0.0000001"), raw("9".repeat(600)), "2", raw("\"1\"")));
        // a number without a fraction is an integer (JSON Schema's rule): 1e2 and -0.0 are wrong only out of range
        if (100 > max || 100 < min) {
            out.add(raw("1e2"));
        }
        if (min > 0) {
            out.add(raw("-0"));
            out.add(raw("-0.0"));
            out.add(0);
        }
        return out;
    }

    private static Map<String, Object> mapOf(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    // ---------------------------------------------------------------- applying a change to a body

    @SuppressWarnings("unchecked")
    private static Object parentOf(Map<String, Object> body, List<Object> path) {
        Object node = body;
        for (int i = 0; i < path.size() - 1; i++) {
            Object p = path.get(i);
            if (p instanceof Integer idx && node instanceof List<?> l && idx < l.size()) {
                node = l.get(idx);
            } else if (p instanceof String key && node instanceof Map<?, ?> m) {
                node = m.get(key);
            } else {
                return null;
            }
        }
        return node;
    }

    @SuppressWarnings("unchecked")
    private static boolean set(Map<String, Object> body, List<Object> path, Object value, boolean remove) {
        Object parent = parentOf(body, path);
        Object last = path.get(path.size() - 1);
        if (parent instanceof Map<?, ?> m) {
            if (remove) {
                ((Map<String, Object>) m).remove(last);
            } else {
                ((Map<String, Object>) m).put((String) last, value);
            }
            return true;
        }
        if (parent instanceof List<?> l && last instanceof Integer i && i < l.size()) {
            ((List<Object>) l).set(i, value);
            return true;
        }
        return false;
    }

    /** A deep copy, so the nested lists and maps of each case are its own and mutable. */
    @SuppressWarnings("unchecked")
    private static Object copy(Object value) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> out.put((String) k, copy(v)));
            return out;
        }
        if (value instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(v -> out.add(copy(v)));
            return out;
        }
        return value;
    }

    byte[] encode(Object body) {
        try {
            // an unpaired surrogate can only be sent escaped: raw UTF-8 has no form for it
            if (random.nextBoolean() || unpaired(body, false)) {
                return ESCAPED.writeValueAsBytes(body);
            }
            return PLAIN.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---------------------------------------------------------------- the cases

    private static String path(String method) {
        return "/api/compute/kubernetesClusters/" + method;
    }

    private static final Set<Integer> BAD_INPUT = Set.of(400);

    private void add(String label, String method, byte[] body, String field) {
        // over the limit, the body is refused whole, before any field is read
        boolean tooLarge = body.length > BODY_LIMIT;
        cases.add(new Case(method + ": " + label, "POST", path(method), body, ApiWorld.ALICE, "application/json",
                tooLarge ? Set.of(413) : BAD_INPUT, tooLarge ? null : field));
    }

    /** A valid body with one to three fields broken (and maybe some fields changed to other valid values). */
    @SuppressWarnings("unchecked")
    void fieldMutations(String method, int count) {
        List<Field> fields = fields(method);
        for (int n = 0; n < count; n++) {
            Map<String, Object> body = (Map<String, Object>) copy(validBody(method));
            // valid unicode where the API takes any text, so stored-looking bodies carry it too
            if (body.containsKey("description") && random.nextBoolean()) {
                body.put("description", pick(List.of("\u202Eright-to-left", "emoji \uD83D\uDE80\uD83D\uDC68\u200D\uD83D\uDC69",
                        "\u05E9\u05DC\u05D5\u05DD", "e\u0301\u0301\u0301", "")));
            }
            int broken = 1 + random.nextInt(3);
            String firstField = null;
            boolean unnamed = false;
            StringBuilder label = new StringBuilder("mutation");
            for (int b = 0; b < broken; b++) {
                Field field = pick(fields);
                int how = random.nextInt(10);
                boolean applied;
                if (how == 0 && field.required()) {
                    applied = set(body, field.path(), null, true);
                    label.append(" remove ").append(field.name());
                } else if (how == 1) {
                    List<Object> at = new ArrayList<>(field.path().subList(0, field.path().size() - 1));
                    String key = pick(List.of("tenantID", "Name", "unknown", "", " ", "\u0000", "\uD800", "\uD83D\uDE80",
                            "\u202EdItnanet", "nodePools[0]", "__proto__", "k".repeat(1 + random.nextInt(300))));
                    at.add(key);
                    applied = set(body, at, random.nextBoolean() ? null : 1, false);
                    field = new Field(at, Kind.STRING, false, 0, 0);
                    label.append(" unknown key at ").append(field.name().length() > 60 ? "(long)" : field.name());
                    if (at.size() == 1) {
                        // the key itself is the field the problem names; it may be shown altered (an unpaired surrogate)
                        applied = false;
                        unnamed = true;
                    }
                } else {
                    Object bad = copy(invalidValue(field));
                    applied = set(body, field.path(), bad, false);
                    String shown = bad instanceof RawValue rv ? String.valueOf(rv.rawValue()) : String.valueOf(bad);
                    label.append(" ").append(field.name()).append("=").append(shown.length() > 40 ? shown.substring(0, 40) + "…" : shown);
                }
                if (applied && firstField == null) {
                    firstField = topOf(field);
                }
            }
            if (firstField == null && !unnamed) {
                // every pick landed under a field an earlier change had removed: break the body itself
                body.put("fuzzUnknownField", 1);
                firstField = "fuzzUnknownField";
            }
            // a name with an unpaired surrogate is no JSON text the parser takes: the body is refused whole
            add(label.toString(), method, encode(body), brokenName(body) ? null : firstField);
        }
    }

    private static boolean brokenName(Object value) {
        return unpaired(value, true);
    }

    /** Whether a key (or, unless keysOnly, a string value) holds an unpaired surrogate. */
    private static boolean unpaired(Object value, boolean keysOnly) {
        if (value instanceof String s) {
            return !keysOnly && !s.equals(new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
        }
        if (value instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (unpaired(e.getKey(), false) || unpaired(e.getValue(), keysOnly)) {
                    return true;
                }
            }
        } else if (value instanceof List<?> l) {
            for (Object item : l) {
                if (unpaired(item, keysOnly)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Where the problem of a broken field is reported: its path up to the first list item of the body. */
    private static String topOf(Field field) {
        Object first = field.path().get(0);
        return (String) first;
    }

    /** Changes to the JSON text of a valid body that make it not one JSON object, or not readable. */
    @SuppressWarnings("unchecked")
    void textMutations(String method, int count) {
        for (int n = 0; n < count; n++) {
            Map<String, Object> valid = (Map<String, Object>) copy(validBody(method));
            String text = new String(encode(valid), StandardCharsets.UTF_8);
            switch (random.nextInt(8)) {
                case 0 -> {
                    String key = pick(new ArrayList<>(valid.keySet()));
                    add("duplicate key " + key, method, ("{\"" + key + "\":" + json(valid.get(key)) + "," + text.substring(1)).getBytes(StandardCharsets.UTF_8), null);
                }
                case 1 -> {
                    String garbage = pick(List.of("x", "}", "{}", "[]", "1", ",", "\u0000", "//c", "null", "\"", "]", "{", "\uFEFF", "\uD83D\uDE80"));
                    add("trailing " + garbage, method, (text + (random.nextBoolean() ? " " : "") + garbage).getBytes(StandardCharsets.UTF_8), null);
                }
                case 2 -> {
                    int cut = random.nextInt(text.length());
                    add("truncated at " + cut, method, text.substring(0, cut).getBytes(StandardCharsets.UTF_8), null);
                }
                case 3 -> add("array at top level", method, ("[" + text + (random.nextBoolean() ? "," + text : "") + "]").getBytes(StandardCharsets.UTF_8), null);
                case 4 -> {
                    valid.put("fuzzUnknownField", 0);
                    byte[] bytes = encode(valid);
                    int flips = 1 + random.nextInt(3);
                    byte[] junk = "{}[]\":,\\0-.eE \u0001tfn".getBytes(StandardCharsets.UTF_8);
                    for (int i = 0; i < flips; i++) {
                        int at = random.nextInt(bytes.length);
                        bytes[at] = random.nextBoolean() ? junk[random.nextInt(junk.length)] : (byte) random.nextInt(256);
                    }
                    add(flips + " corrupted bytes", method, bytes, null);
                }
                case 5 -> {
                    String key = pick(new ArrayList<>(valid.keySet()));
                    String bad = pick(List.of("'acme'", "acme", "NaN", "Infinity", "-Infinity", "undefined", "0x10", "+1", ".5",
                            "01", "1.", "tru", "nul", "\"\\x41\"", "\"\\uD8\"", "\"a\u0001b\"", "\"\\\"", "/*c*/1", "{\"a\" 1}"));
                    String replaced = text.replaceFirst("\"" + key + "\":", "\"" + key + "\":" + java.util.regex.Matcher.quoteReplacement(bad) + ",\"fuzzUnknownField\":");
                    add(key + " as " + bad, method, replaced.getBytes(StandardCharsets.UTF_8), null);
                }
                case 6 -> {
                    // invalid UTF-8 inside a string value: a lone continuation byte, an overlong form, an encoded surrogate, a cut sequence
                    byte[][] bads = {{(byte) 0x80}, {(byte) 0xC0, (byte) 0x80}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                            {(byte) 0xF0, (byte) 0x9F}, {(byte) 0xFF}, {(byte) 0xFE, (byte) 0xFF}, {(byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80}};
                    byte[] bad = bads[random.nextInt(bads.length)];
                    String key = pick(new ArrayList<>(valid.keySet()));
                    byte[] head = ("{\"" + key + "\":\"a").getBytes(StandardCharsets.UTF_8);
                    byte[] tail = ("b\"," + text.substring(1)).getBytes(StandardCharsets.UTF_8);
                    add("invalid UTF-8 in " + key, method, concat(head, bad, tail), null);
                }
                default -> {
                    // a UTF-8 byte order mark, or the body in UTF-16, each with a field broken
                    valid.put("fuzzUnknownField", 0);
                    byte[] bytes = random.nextBoolean()
                            ? concat(new byte[]{(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, encode(valid))
                            : json(valid).getBytes(random.nextBoolean() ? StandardCharsets.UTF_16BE : StandardCharsets.UTF_16LE);
                    add("BOM or UTF-16 with an unknown field", method, bytes, null);
                }
            }
        }
    }

    /** Bodies that are not a JSON object at all, empty, or not JSON. */
    void notObjects(String method) {
        List<String> texts = List.of("", " ", "\n\t", "null", "true", "false", "0", "-0", "1e309", "\"acme\"", "[]", "[{}]",
                "[null]", "{", "}", "{}}", "{\"tenantId\"}", "{\"tenantId\":}", "{,}", "{\"a\":1,}", "hello", "<xml/>",
                "tenantId=acme&name=x", "tenantId: acme\nname: x\n", "{'tenantId':'acme'}", "{tenantId:\"acme\"}",
                "\u0000", "\u0000{}", "{}\u0000", "\uFEFF", "\uD83D\uDE80", "NaN", "{\"tenantId\":NaN}",
                "/* comment */ {}", "{} // comment", "{\"tenantId\":\"acme\"}{\"tenantId\":\"acme\"}");
        for (String t : texts) {
            add("not an object: " + t.replace("\n", "\\n"), method, t.getBytes(StandardCharsets.UTF_8), null);
        }
        byte[] noise = new byte[1 + random.nextInt(200)];
        random.nextBytes(noise);
        add("random bytes", method, noise, null);
        add("{} (every required field missing)", method, "{}".getBytes(StandardCharsets.UTF_8), "tenantId");
        add("every field null", method, encode(nulls(method)), "tenantId");
    }

    private static Map<String, Object> nulls(String method) {
        Map<String, Object> m = new LinkedHashMap<>();
        validBody(method).keySet().forEach(k -> m.put(k, null));
        return m;
    }

    /** Huge strings, keys and arrays under the 1 MiB limit, and bodies over it. */
    @SuppressWarnings("unchecked")
    void huge(String method) {
        Map<String, Object> body = (Map<String, Object>) copy(validBody(method));
        body.put("tenantId", "t".repeat(1_000_000));
        add("1 MB tenantId", method, encode(body), "tenantId");

        body = (Map<String, Object>) copy(validBody(method));
        body.put("k".repeat(1_000_000), 1);
        add("1 MB unknown key", method, encode(body), null);

        body = (Map<String, Object>) copy(validBody(method));
        body.put("tenantId", "\uD83D\uDE80".repeat(200_000));
        add("800 kB of emoji in tenantId", method, json(body).getBytes(StandardCharsets.UTF_8), "tenantId");

        body = (Map<String, Object>) copy(validBody(method));
        body.put("description", "d".repeat(1_100_000));
        add("a body over 1 MiB", method, encode(body), null);

        body = (Map<String, Object>) copy(validBody(method));
        body.put("fuzzUnknownField", "x".repeat(BODY_LIMIT));
        add("a body of 1 MiB and a bit", method, encode(body), null);

        byte[] exact = encode(validBody(method));
        String prefix = new String(exact, StandardCharsets.UTF_8);
        String head = prefix.substring(0, prefix.length() - 1) + ",\"fuzzUnknownField\":\"";
        String filled = head + "y".repeat(BODY_LIMIT - head.length() - 2) + "\"}";
        add("a body of exactly 1 MiB", method, filled.getBytes(StandardCharsets.UTF_8), "fuzzUnknownField");
        add("a body of 1 MiB + 1 byte", method, (filled + "\n").getBytes(StandardCharsets.UTF_8), null);

        body = (Map<String, Object>) copy(validBody(method));
        body.put("tenantId", java.util.Collections.nCopies(100_000, "10.0.0.0/8"));
        add("100,000-item array", method, encode(body), "tenantId");

        Map<String, Object> many = new LinkedHashMap<>();
        for (int i = 0; i < 40_000; i++) {
            many.put("k" + i, i);
        }
        add("40,000 unknown keys", method, encode(many), null);

        byte[] digits = ("{\"tenantId\":" + "9".repeat(100_000) + "}").getBytes(StandardCharsets.UTF_8);
        add("a 100,000-digit number", method, digits, null);
    }

    /** Nesting 10,000 levels deep (the body, a field's value, unclosed), and around the parser's limit of 64. */
    void deep(String method) {
        int d = 10_000;
        add("10,000 nested arrays", method, ("[".repeat(d) + "]".repeat(d)).getBytes(StandardCharsets.UTF_8), null);
        add("10,000 nested objects", method, ("{\"a\":".repeat(d) + "1" + "}".repeat(d)).getBytes(StandardCharsets.UTF_8), null);
        add("10,000 levels in tenantId", method, ("{\"tenantId\":" + "[".repeat(d) + "]".repeat(d) + "}").getBytes(StandardCharsets.UTF_8), null);
        add("10,000 unclosed arrays", method, "[".repeat(d).getBytes(StandardCharsets.UTF_8), null);
        add("10,000 unclosed objects", method, "{\"a\":".repeat(d).getBytes(StandardCharsets.UTF_8), null);
        add("100,000 nested arrays", method, ("[".repeat(100_000) + "]".repeat(100_000)).getBytes(StandardCharsets.UTF_8), null);
        for (int depth : new int[]{62, 63, 64, 65}) {
            add(depth + " levels in tenantId", method, ("{\"tenantId\":" + "[".repeat(depth) + "]".repeat(depth) + "}").getBytes(StandardCharsets.UTF_8), null);
        }
    }

    /** The same malformed bodies without a valid token: authentication comes first. */
    void tokens(int count) {
        List<Case> some = new ArrayList<>(cases);
        for (int i = 0; i < count; i++) {
            Case c = some.get(random.nextInt(some.size()));
            switch (random.nextInt(4)) {
                case 0 -> cases.add(c.withToken(null, Set.of(401)));
                case 1 -> cases.add(c.withToken("not-a-token", Set.of(401)));
                case 2 -> cases.add(c.withToken("x".repeat(5000), Set.of(401)));
                // a viewer and another tenant's admin: the input is read before any decision
                default -> cases.add(c.withToken(random.nextBoolean() ? ApiWorld.DAVE : ApiWorld.CAROL, c.statuses()));
            }
        }
    }

    /** Content types and HTTP methods the API does not serve. */
    void headers(int count) {
        List<Case> some = new ArrayList<>(cases);
        for (int i = 0; i < count; i++) {
            Case c = some.get(random.nextInt(some.size()));
            if (random.nextBoolean()) {
                String type = pick(List.of("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                        "application/json; charset=utf-16", "application/xml", "*/*", "application/json; charset=\u00FF"));
                // authentication first, then the body's type: a body that is not JSON is never read as JSON
                cases.add(new Case(c.label() + " [content type " + type + "]", c.httpMethod(), c.path(), c.body(), c.token(),
                        type, c.statuses().contains(401) ? c.statuses() : Set.of(415), null));
            } else {
                String m = pick(List.of("GET", "PUT", "DELETE", "PATCH"));
                cases.add(new Case(c.label() + " [" + m + "]", m, c.path(), m.equals("GET") || m.equals("DELETE") ? new byte[0] : c.body(),
                        c.token(), c.contentType(), Set.of(405), null));
            }
        }
    }

    /** {@code GET /api/events} with bad query parameters. */
    void events() {
        Set<Integer> bad = Set.of(400);
        Map<String, Set<Integer>> queries = new LinkedHashMap<>();
        for (String v : List.of("abc", "-1", "1.5", "1e3", "9223372036854775808", "-9223372036854775809", "0x10", "%201",
                "%EF%BC%91", "%00", "1%00", "+1", "--1", "1,2", "%F0%9F%9A%80", "%ED%A0%80", "9".repeat(5000))) {
            queries.put("after=" + v, bad);
            queries.put("limit=" + v, bad);
        }
        queries.put("after=9007199254740992", bad); // above 2^53 - 1, the API's largest integer
        for (String v : List.of("0", "1001", "-2147483648", "2147483648", "4294967297", "4294967296", "9223372036854775807", "1000.0")) {
            queries.put("limit=" + v, bad);
        }
        Set<Integer> anyRefusal = Set.of(400, 403, 404);
        for (String v : List.of("", "%00", "%F0%9F%9A%80", "%E2%80%AEemca", "%ED%A0%80", "%C0%AF", "%zz", "%", "%e", "a%2",
                "x".repeat(3000), "globex", "acme%00", "ACME", "acme&tenantId=globex")) {
            queries.put("tenantId=" + v, anyRefusal);
        }
        queries.put("after=%zz", bad);
        queries.put("limit=%", bad);
        queries.put("after=1&after=x", bad);
        queries.put("limit=x&limit=1", bad);
        for (Map.Entry<String, Set<Integer>> q : queries.entrySet()) {
            String query = q.getKey().startsWith("tenantId=") ? q.getKey() : q.getKey() + "&tenantId=acme";
            Set<Integer> ok = new java.util.HashSet<>(q.getValue());
            cases.add(new Case("events ?" + shorten(query), "GET", "/api/events?" + query, new byte[0], ApiWorld.ALICE, null, ok, null));
            Set<Integer> forOps = new java.util.HashSet<>(q.getValue());
            if (q.getKey().startsWith("tenantId=")) {
                forOps.add(200); // an operator may read any tenant's events, even one that does not exist
            }
            cases.add(new Case("events (operator) ?" + shorten(query), "GET", "/api/events?" + query, new byte[0], ApiWorld.OPS, null, forOps, null));
        }
        cases.add(new Case("events with a body", "GET", "/api/events?limit=x", "{\"a\":".repeat(100).getBytes(StandardCharsets.UTF_8),
                ApiWorld.ALICE, null, bad, null));
        cases.add(new Case("events without a token", "GET", "/api/events?limit=x", new byte[0], null, null, Set.of(401), null));
        cases.add(new Case("events by POST", "POST", "/api/events", "{}".getBytes(StandardCharsets.UTF_8), ApiWorld.OPS, null, Set.of(405), null));
    }

    private static String shorten(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "…(" + s.length() + ")" : s;
    }

    List<Case> all() {
        return cases;
    }

    /** The body as JSON with every character past ASCII escaped, so an unpaired surrogate survives the trip. */
    static byte[] escaped(Object body) {
        try {
            return ESCAPED.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String json(Object value) {
        try {
            return PLAIN.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    /** Every case: per method field and text mutations, non-objects, huge and deep bodies; then tokens, headers, events. */
    static List<Case> generate(long seed, int mutationsPerMethod) {
        MalformedBodies g = new MalformedBodies(seed);
        for (String method : METHODS) {
            int fieldCount = method.equals("create") ? mutationsPerMethod * 2 : mutationsPerMethod;
            g.fieldMutations(method, fieldCount);
            g.textMutations(method, mutationsPerMethod / 2);
            g.notObjects(method);
            g.huge(method);
            g.deep(method);
        }
        int n = g.cases.size();
        g.tokens(n / 8);
        g.headers(n / 8);
        g.events();
        return g.all();
    }

}
