package com.bettercompute.adapters.gke.simulator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The JSON the simulator writes outside protobuf's messages (error bodies, fault controls, saved state), through
 * Jackson so any text, newlines and quotes included, stays one valid document.
 */
final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    /** JSON of maps, lists, strings, numbers, booleans, nulls and trees; integers stay integers. */
    static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the GKE simulator could not write a value as JSON", e);
        }
    }

    /** The tree of a document this simulator printed itself (a protobuf message through JsonFormat). */
    static JsonNode tree(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the GKE simulator printed a document that is not JSON", e);
        }
    }
}
