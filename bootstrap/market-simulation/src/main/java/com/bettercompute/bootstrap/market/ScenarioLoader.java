package com.bettercompute.bootstrap.market;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Collectors;

/** Reads a scenario YAML; a bad file fails with the line, the field and the problem. */
final class ScenarioLoader {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    private ScenarioLoader() {
    }

    /** A file path, or {@code classpath:market/example-scenario.yaml} for a scenario shipped in the jar. */
    static Scenario load(String location) {
        if (location.startsWith("classpath:")) {
            String resource = location.substring("classpath:".length());
            try (var in = ScenarioLoader.class.getClassLoader().getResourceAsStream(resource)) {
                if (in == null) {
                    throw new ScenarioException("no scenario " + resource + " in the jar");
                }
                return parse(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new ScenarioException("cannot read " + location + ": " + e.getMessage(), e);
            }
        }
        return load(Path.of(location));
    }

    static Scenario load(Path file) {
        try {
            return parse(Files.readString(file));
        } catch (NoSuchFileException e) {
            throw new ScenarioException("no scenario file " + file);
        } catch (IOException e) {
            throw new ScenarioException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    static Scenario parse(String yaml) {
        try {
            JsonNode tree = YAML.readTree(yaml);
            if (tree == null || tree.isMissingNode() || tree.isNull()) {
                throw new ScenarioException("the scenario is empty: it needs at least duration, pools and tenants");
            }
            if (!tree.isObject()) {
                throw new ScenarioException("line 1: a scenario is a mapping of fields (name, duration, pools, tenants, "
                        + "jobs, ...), not a " + tree.getNodeType().toString().toLowerCase(java.util.Locale.ROOT));
            }
            return YAML.readValue(yaml, Scenario.class);
        } catch (UnrecognizedPropertyException e) {
            String pointer = pointer(e);
            int line = lineOf(yaml, pointer);
            throw new ScenarioException((line > 0 ? "line " + line + ": " : "") + path(e) + "unknown field \""
                    + e.getPropertyName() + "\"; known fields: " + e.getKnownPropertyIds().stream()
                    .map(String::valueOf).sorted().collect(Collectors.joining(", ")), e);
        } catch (JsonMappingException e) {
            throw new ScenarioException(where(e) + e.getOriginalMessage(), e);
        } catch (JsonProcessingException e) {
            throw new ScenarioException(where(e) + "not valid YAML: " + e.getOriginalMessage(), e);
        }
    }

    /** The JSON pointer of the field a mapping error is about, such as {@code /pools/0/nodez}. */
    private static String pointer(JsonMappingException e) {
        StringBuilder pointer = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            pointer.append('/').append(ref.getFieldName() != null ? ref.getFieldName() : ref.getIndex());
        }
        return pointer.toString();
    }

    /**
     * The line a field's name is written on. The parser reports an unknown field where it stopped
     * reading, which in YAML can be lines further on; the field's own token knows its line.
     */
    private static int lineOf(String yaml, String pointer) {
        try (JsonParser p = YAML.getFactory().createParser(yaml)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t == JsonToken.FIELD_NAME && p.getParsingContext().pathAsPointer().toString().equals(pointer)) {
                    return p.getTokenLocation().getLineNr();
                }
            }
        } catch (IOException unreadable) {
            return -1;
        }
        return -1;
    }

    private static String where(JsonProcessingException e) {
        StringBuilder b = new StringBuilder();
        JsonLocation loc = e.getLocation();
        if (loc != null && loc.getLineNr() > 0) {
            b.append("line ").append(loc.getLineNr()).append(": ");
        }
        return b.append(e instanceof JsonMappingException m ? path(m) : "").toString();
    }

    private static String path(JsonMappingException m) {
        StringBuilder b = new StringBuilder();
        if (!m.getPath().isEmpty()) {
            StringBuilder path = new StringBuilder();
            for (JsonMappingException.Reference ref : m.getPath()) {
                if (ref.getFieldName() != null) {
                    path.append(path.length() == 0 ? "" : ".").append(ref.getFieldName());
                } else if (ref.getIndex() >= 0) {
                    path.append('[').append(ref.getIndex()).append(']');
                }
            }
            b.append(path).append(": ");
        }
        return b.toString();
    }
}
