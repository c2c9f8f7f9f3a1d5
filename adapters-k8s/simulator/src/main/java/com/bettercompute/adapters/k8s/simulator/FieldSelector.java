package com.bettercompute.adapters.k8s.simulator;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A list's {@code fieldSelector}, which the CRUD mock reads only for {@code metadata.name} and
 * {@code metadata.namespace}: requirements {@code path=value}, {@code path==value} or {@code path!=value}, joined
 * by commas, each on the object's field at that dotted path (an absent field reads as the empty value, so
 * {@code involvedObject.namespace=} matches a Node's Events). kube-apiserver accepts only the fields each kind
 * indexes; this simulator reads any field.
 */
record FieldSelector(List<Requirement> requirements) {
    record Requirement(String[] path, String value, boolean equal) {
        boolean matches(Map<String, Object> object) {
            Object found = Obj.at(object, path);
            return (found == null ? "" : String.valueOf(found)).equals(value) == equal;
        }
    }

    static final FieldSelector NONE = new FieldSelector(List.of());

    /** The selector of a query ({@code ?a=b&fieldSelector=…}), or {@link #NONE}. */
    static FieldSelector of(String query) {
        String selector = param(query, "fieldSelector");
        if (selector == null || selector.isBlank()) {
            return NONE;
        }
        List<Requirement> out = new ArrayList<>();
        for (String term : selector.split(",")) {
            int bang = term.indexOf("!=");
            int eq = term.indexOf('=');
            if (bang >= 0) {
                out.add(new Requirement(term.substring(0, bang).trim().split("\\."), term.substring(bang + 2).trim(), false));
            } else if (eq >= 0) {
                int value = term.startsWith("==", eq) ? eq + 2 : eq + 1;
                out.add(new Requirement(term.substring(0, eq).trim().split("\\."), term.substring(value).trim(), true));
            }
        }
        return new FieldSelector(List.copyOf(out));
    }

    boolean none() {
        return requirements.isEmpty();
    }

    boolean matches(Map<String, Object> object) {
        return requirements.stream().allMatch(r -> r.matches(object));
    }

    /** The query without its {@code fieldSelector}, for the CRUD mock to list everything this filters. */
    static String without(String query) {
        if (query.isEmpty()) {
            return query;
        }
        List<String> kept = new ArrayList<>();
        for (String p : query.substring(1).split("&")) {
            if (!p.startsWith("fieldSelector=")) {
                kept.add(p);
            }
        }
        return kept.isEmpty() ? "" : "?" + String.join("&", kept);
    }

    /** A query parameter's decoded value, or null. */
    static String param(String query, String name) {
        if (query.isEmpty()) {
            return null;
        }
        for (String p : query.substring(1).split("&")) {
            if (p.startsWith(name + "=")) {
                return URLDecoder.decode(p.substring(name.length() + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }
}
