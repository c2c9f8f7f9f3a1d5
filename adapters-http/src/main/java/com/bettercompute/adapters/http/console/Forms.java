package com.bettercompute.adapters.http.console;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** A form sent back with the API's own refusal: each problem beside its field, the rest above the form. */
final class Forms {
    private Forms() {}

    /** The refusal on the form as typed; field names are the API's ({@code nodePools[0].name}), renamed by {@code as}. */
    static Model.Form refused(Map<String, String> typed, DomainException e, Map<String, String> as) {
        Map<String, String> errors = new LinkedHashMap<>();
        String message = null;
        if (e.code() == ErrorCode.INVALID_INPUT && e.details().get("fields") instanceof List<?> fields) {
            for (Object o : fields) {
                if (o instanceof Map<?, ?> f && f.get("field") instanceof String field && f.get("problem") instanceof String problem) {
                    String shown = as.getOrDefault(field, field);
                    if (typed.containsKey(shown)) {
                        errors.merge(shown, problem, (a, b) -> a + "; " + b);
                    } else {
                        message = message == null ? e.getMessage() : message;
                    }
                }
            }
        } else {
            message = e.getMessage();
        }
        if (e.details().get("reason") instanceof String reason && message != null && !message.contains(reason)) {
            message = message + " (" + reason + ")";
        }
        return new Model.Form(typed, errors, message);
    }

    /** A field's problem from a refusal that names no fields of its own (such as {@code bid-too-low}). */
    static Model.Form onField(Map<String, String> typed, String field, DomainException e) {
        String reason = e.details().get("reason") instanceof String r ? " (" + r + ")" : "";
        return new Model.Form(typed, Map.of(field, e.getMessage() + reason), null);
    }

    /** A new key for a create form: sent twice (a double click, a reload), the form still creates once. */
    static String newKey() {
        return "console-" + UUID.randomUUID();
    }

    /** A whole number as JSON would carry it, or the text as typed (which the API then refuses by type). */
    static Object number(String typed) {
        if (typed.matches("-?[0-9]{1,9}")) {
            return Long.parseLong(typed);
        }
        return typed;
    }

    /** The typed value, or nothing when the field was left empty (so the API names a required field missing). */
    static void put(Map<String, Object> body, String field, Object value) {
        if (value != null && !(value instanceof String s && s.isEmpty())) {
            body.put(field, value);
        }
    }
}
