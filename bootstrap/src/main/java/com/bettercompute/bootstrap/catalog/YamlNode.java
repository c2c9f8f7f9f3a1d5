package com.bettercompute.bootstrap.catalog;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A YAML value with the line it starts on, so every problem found in a catalog file can name its line.
 * {@code value} is a {@code Map<String, YamlNode>}, a {@code List<YamlNode>}, a {@code String}, a
 * {@code Number}, a {@code Boolean} or null.
 */
record YamlNode(Object value, int line) {

    static YamlNode parse(String text) throws IOException {
        try (JsonParser p = new YAMLFactory().createParser(text)) {
            JsonToken t = p.nextToken();
            if (t == null) {
                return new YamlNode(new LinkedHashMap<String, YamlNode>(), 1);
            }
            YamlNode root = read(p);
            if (p.nextToken() != null) {
                throw new CatalogException(p.currentTokenLocation().getLineNr(), "only one YAML document is allowed");
            }
            return root;
        }
    }

    private static YamlNode read(JsonParser p) throws IOException {
        int line = p.currentTokenLocation().getLineNr();
        JsonToken t = p.currentToken();
        switch (t) {
            case START_OBJECT -> {
                Map<String, YamlNode> map = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String key = p.currentName();
                    int keyLine = p.currentTokenLocation().getLineNr();
                    p.nextToken();
                    if (map.containsKey(key)) {
                        throw new CatalogException(keyLine, "the key '" + key + "' appears twice");
                    }
                    map.put(key, read(p));
                }
                return new YamlNode(map, line);
            }
            case START_ARRAY -> {
                List<YamlNode> list = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    list.add(read(p));
                }
                return new YamlNode(list, line);
            }
            case VALUE_STRING -> {
                return new YamlNode(p.getText(), line);
            }
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
                return new YamlNode(p.getDecimalValue(), line);
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return new YamlNode(p.getBooleanValue(), line);
            }
            case VALUE_NULL -> {
                return new YamlNode(null, line);
            }
            default -> throw new CatalogException(line, "unexpected YAML content");
        }
    }
}
