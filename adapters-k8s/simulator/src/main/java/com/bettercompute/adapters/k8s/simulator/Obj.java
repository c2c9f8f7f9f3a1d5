package com.bettercompute.adapters.k8s.simulator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reading and writing Kubernetes objects held as JSON maps: the simulated controllers know no typed model. */
final class Obj {
    private Obj() {}

    /** The value as a map; an empty (detached) map when it is not one. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return value instanceof Map<?, ?> m ? (Map<String, Object>) m : new LinkedHashMap<>();
    }

    /** The value as a list; an empty (detached) list when it is not one. */
    @SuppressWarnings("unchecked")
    static List<Object> list(Object value) {
        return value instanceof List<?> l ? (List<Object>) l : new ArrayList<>();
    }

    /** The value at a path of keys, or null. */
    static Object at(Map<String, Object> object, String... path) {
        Object current = object;
        for (String key : path) {
            if (!(current instanceof Map<?, ?> m)) {
                return null;
            }
            current = m.get(key);
        }
        return current;
    }

    static String str(Map<String, Object> object, String... path) {
        Object value = at(object, path);
        return value == null ? null : value.toString();
    }

    static long num(Map<String, Object> object, long otherwise, String... path) {
        Object value = at(object, path);
        if (value instanceof Number n) {
            return n.longValue();
        }
        if (value instanceof String s && s.matches("-?\\d{1,18}")) {
            return Long.parseLong(s);
        }
        return otherwise;
    }

    /** The map at a path, made (and put in place) where it is missing. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> child(Map<String, Object> object, String... path) {
        Map<String, Object> current = object;
        for (String key : path) {
            Object next = current.get(key);
            if (!(next instanceof Map<?, ?>)) {
                next = new LinkedHashMap<String, Object>();
                current.put(key, next);
            }
            current = (Map<String, Object>) next;
        }
        return current;
    }

    /** The list at a path, made (and put in place) where it is missing. */
    @SuppressWarnings("unchecked")
    static List<Object> childList(Map<String, Object> object, String key) {
        Object value = object.get(key);
        if (!(value instanceof List<?>)) {
            value = new ArrayList<>();
            object.put(key, value);
        }
        return (List<Object>) value;
    }

    /** A deep copy (maps and lists copied, leaves shared: they are immutable strings, numbers, booleans). */
    @SuppressWarnings("unchecked")
    static <T> T copy(T value) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> out.put((String) k, copy(v)));
            return (T) out;
        }
        if (value instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(v -> out.add(copy(v)));
            return (T) out;
        }
        return value;
    }

    /** An RFC 3339 time, or null when the text is not one. */
    static java.time.Instant instant(String text) {
        try {
            return text == null ? null : java.time.Instant.parse(text);
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }

    static String name(Map<String, Object> object) {
        return str(object, "metadata", "name");
    }

    static String namespace(Map<String, Object> object) {
        return str(object, "metadata", "namespace");
    }

    static Map<String, Object> labels(Map<String, Object> object) {
        return map(at(object, "metadata", "labels"));
    }

    static Map<String, Object> annotations(Map<String, Object> object) {
        return map(at(object, "metadata", "annotations"));
    }

    /** The condition of that type in {@code status.conditions}, or null. */
    static Map<String, Object> condition(Map<String, Object> object, String type) {
        for (Object c : list(at(object, "status", "conditions"))) {
            if (type.equals(map(c).get("type"))) {
                return map(c);
            }
        }
        return null;
    }

    static boolean isTrue(Map<String, Object> object, String type) {
        Map<String, Object> c = condition(object, type);
        return c != null && "True".equals(c.get("status"));
    }

    /**
     * Sets a condition as Kubernetes controllers do: the transition time moves only when the status
     * changes. True if anything changed.
     */
    static boolean setCondition(Map<String, Object> object, String type, String status, String reason, String message, String now) {
        List<Object> conditions = childList(child(object, "status"), "conditions");
        for (Object c : conditions) {
            Map<String, Object> existing = map(c);
            if (type.equals(existing.get("type"))) {
                boolean same = status.equals(existing.get("status")) && reason.equals(existing.get("reason"))
                        && message.equals(existing.get("message"));
                if (same) {
                    return false;
                }
                if (!status.equals(existing.get("status"))) {
                    existing.put("lastTransitionTime", now);
                }
                existing.put("status", status);
                existing.put("reason", reason);
                existing.put("message", message);
                return true;
            }
        }
        Map<String, Object> added = new LinkedHashMap<>();
        added.put("type", type);
        added.put("status", status);
        added.put("reason", reason);
        added.put("message", message);
        added.put("lastTransitionTime", now);
        conditions.add(added);
        return true;
    }
}
