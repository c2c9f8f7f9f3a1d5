package com.bettercompute.bootstrap.catalog;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The line each value of a YAML document starts on, by JSON pointer ({@code /tenants/0/maxClusters}), so a problem
 * found in the bound records still names its line. Reading it also refuses what binding would let through: a key
 * written twice in one mapping and a second document.
 */
final class YamlLines {
    private final Map<String, Integer> lines;
    private final JsonToken root;

    private YamlLines(Map<String, Integer> lines, JsonToken root) {
        this.lines = lines;
        this.root = root;
    }

    static YamlLines of(JsonFactory yaml, String text) throws IOException {
        Map<String, Integer> lines = new HashMap<>();
        try (JsonParser p = yaml.createParser(text)) {
            JsonToken root = p.nextToken();
            if (root == null) {
                return new YamlLines(lines, null);
            }
            walk(p, "", lines);
            if (p.nextToken() != null) {
                throw new CatalogException(p.currentTokenLocation().getLineNr(), "only one YAML document is allowed");
            }
            return new YamlLines(lines, root);
        }
    }

    private static void walk(JsonParser p, String pointer, Map<String, Integer> lines) throws IOException {
        lines.put(pointer, p.currentTokenLocation().getLineNr());
        if (p.currentToken() == JsonToken.START_OBJECT) {
            Set<String> keys = new HashSet<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String key = p.currentName();
                if (!keys.add(key)) {
                    throw new CatalogException(p.currentTokenLocation().getLineNr(), "the key '" + key + "' appears twice");
                }
                p.nextToken();
                walk(p, child(pointer, key), lines);
            }
        } else if (p.currentToken() == JsonToken.START_ARRAY) {
            int index = 0;
            while (p.nextToken() != JsonToken.END_ARRAY) {
                walk(p, child(pointer, index++), lines);
            }
        }
    }

    /** Nothing but comments or white space. */
    boolean empty() {
        return root == null;
    }

    boolean mapping() {
        return root == JsonToken.START_OBJECT;
    }

    /** The line the value at this pointer starts on; for a value not written, the line of the nearest one around it. */
    int line(String pointer) {
        for (String p = pointer; ; p = p.substring(0, p.lastIndexOf('/'))) {
            Integer line = lines.get(p);
            if (line != null) {
                return line;
            }
            if (p.isEmpty()) {
                return 1;
            }
        }
    }

    boolean written(String pointer) {
        return lines.containsKey(pointer);
    }

    static String child(String pointer, String key) {
        return pointer + "/" + key.replace("~", "~0").replace("/", "~1");
    }

    static String child(String pointer, int index) {
        return pointer + "/" + index;
    }
}
