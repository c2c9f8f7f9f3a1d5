package com.bettercompute.domain.input;

import java.util.Map;

/**
 * One bad field of an input: its path ({@code nodePools[0].name}; empty for the body itself), why, where
 * the request carried it ({@code body}, {@code query}, {@code path} or {@code header}; null when the reader
 * of the input does not know, and the HTTP adapter fills it in) and, for a rule of the field's own schema,
 * that schema as the API's document states it ({@code pattern}, {@code maxLength}, {@code enum}, ...; null
 * for a rule between fields or on the state of things).
 */
public record FieldProblem(String field, String problem, String in, Map<String, Object> allowed) {
    public FieldProblem {
        allowed = allowed == null ? null : Map.copyOf(allowed);
    }

    public FieldProblem(String field, String problem) {
        this(field, problem, null, null);
    }
}
