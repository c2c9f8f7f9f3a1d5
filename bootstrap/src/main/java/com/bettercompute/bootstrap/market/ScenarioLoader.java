package com.bettercompute.bootstrap.market;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
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
            Scenario s = YAML.readValue(yaml, Scenario.class);
            if (s == null) {
                throw new ScenarioException("the scenario is empty");
            }
            return s;
        } catch (UnrecognizedPropertyException e) {
            throw new ScenarioException(where(e) + "unknown field \"" + e.getPropertyName() + "\"; known fields: "
                    + e.getKnownPropertyIds().stream().map(String::valueOf).sorted().collect(Collectors.joining(", ")), e);
        } catch (JsonMappingException e) {
            throw new ScenarioException(where(e) + e.getOriginalMessage(), e);
        } catch (JsonProcessingException e) {
            throw new ScenarioException(where(e) + "not valid YAML: " + e.getOriginalMessage(), e);
        }
    }

    private static String where(JsonProcessingException e) {
        StringBuilder b = new StringBuilder();
        JsonLocation loc = e.getLocation();
        if (loc != null && loc.getLineNr() > 0) {
            b.append("line ").append(loc.getLineNr()).append(": ");
        }
        if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
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
