package com.bettercompute.adapters.http;

import com.bettercompute.domain.input.FieldProblem;
import com.bettercompute.domain.input.Input;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Checks the values of one bound request object against its method's input table, collecting every
 * problem instead of stopping at the first, in the order the fields are checked, so {@code details}
 * names each bad field. A field bound with the wrong JSON type ({@link Binding}) is named with the type
 * it must have; an absent or {@code null} field counts as not given. Getters return {@code null} (or the
 * default) for a bad or absent field: call {@link #throwIfInvalid()} before using what they return.
 */
final class Fields {
    private final Binding binding;
    private final List<FieldProblem> problems;
    private final String path;

    Fields(Binding binding) {
        this(binding, new ArrayList<>(), "");
    }

    private Fields(Binding binding, List<FieldProblem> problems, String path) {
        this.binding = binding;
        this.problems = problems;
        this.path = path;
    }

    private String name(String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    private void problem(String where, String problem) {
        problems.add(new FieldProblem(where, problem));
    }

    /** A field not given: its type problem when it came with the wrong JSON type, else "is required" when it is. */
    private void notGiven(String where, boolean required, String typeProblem) {
        if (binding.wrongType(where)) {
            problem(where, typeProblem);
        } else if (required) {
            problem(where, "is required");
        }
    }

    /** Adds the problem of the whole body. */
    void body(String problem) {
        problem("", problem);
    }

    String string(String field, String value, boolean required, int maxLength, Pattern pattern) {
        if (value == null) {
            notGiven(name(field), required, "must be a string");
            return null;
        }
        return checkString(name(field), value, maxLength, pattern);
    }

    private String checkString(String where, String s, int maxLength, Pattern pattern) {
        if (s.length() > maxLength) {
            problem(where, "must be at most " + maxLength + " characters");
            return null;
        }
        if (!Input.isText(s)) {
            problem(where, "must be text without NUL characters or unpaired surrogates");
            return null;
        }
        if (pattern != null && !pattern.matcher(s).matches()) {
            problem(where, "must match " + pattern.pattern());
            return null;
        }
        return s;
    }

    /** One of the given wire values; {@code fallback} when absent. */
    <E extends Enum<E>> E oneOf(String field, String value, boolean required, Map<String, E> values, E fallback) {
        String where = name(field);
        if (value == null && !binding.wrongType(where)) {
            notGiven(where, required, null);
            return fallback;
        }
        E e = value == null ? null : values.get(value);
        if (e == null) {
            problem(where, "must be one of " + String.join(", ", values.keySet()));
        }
        return e;
    }

    Integer integer(String field, BigInteger value, boolean required, long min, long max) {
        if (value == null) {
            notGiven(name(field), required, "must be an integer");
            return null;
        }
        if (value.compareTo(BigInteger.valueOf(min)) < 0 || value.compareTo(BigInteger.valueOf(max)) > 0) {
            problem(name(field), "must be between " + min + " and " + max);
            return null;
        }
        return value.intValueExact();
    }

    Boolean bool(String field, Boolean value, Boolean fallback) {
        if (value == null) {
            if (binding.wrongType(name(field))) {
                problem(name(field), "must be a boolean");
                return null;
            }
            return fallback;
        }
        return value;
    }

    /** A list of strings, each checked; {@code null} when absent. */
    List<String> strings(String field, List<String> value, int maxItems, int maxLength, Pattern pattern) {
        if (value == null) {
            notGiven(name(field), false, "must be a list of strings");
            return null;
        }
        if (value.size() > maxItems) {
            problem(name(field), "must have at most " + maxItems + " items");
            return null;
        }
        List<String> out = new ArrayList<>(value.size());
        for (int i = 0; i < value.size(); i++) {
            String item = value.get(i);
            String where = name(field) + "[" + i + "]";
            String s = item == null ? wrongItem(where) : checkString(where, item, maxLength, pattern);
            if (s != null) {
                out.add(s);
            }
        }
        return out.size() == value.size() ? List.copyOf(out) : null;
    }

    /** A null or wrongly typed item of a list or map of strings. */
    private String wrongItem(String where) {
        problem(where, "must be a string");
        return null;
    }

    /** A map of string to string, each key and value checked; {@code null} when absent. Sorted by key. */
    Map<String, String> stringMap(String field, Map<String, String> value, int maxEntries, int maxKeyLength, Pattern keyPattern,
                                  int maxValueLength, Pattern valuePattern) {
        if (value == null) {
            notGiven(name(field), false, "must be an object of strings");
            return null;
        }
        if (value.size() > maxEntries) {
            problem(name(field), "must have at most " + maxEntries + " entries");
            return null;
        }
        Map<String, String> out = new TreeMap<>();
        boolean ok = true;
        for (Map.Entry<String, String> e : value.entrySet()) {
            String key = e.getKey();
            String where = name(field) + "." + Input.shown(key);
            if (key.length() > maxKeyLength || !keyPattern.matcher(key).matches()) {
                problem(where, "key must be at most " + maxKeyLength + " characters and match " + keyPattern.pattern());
                ok = false;
                continue;
            }
            String v = e.getValue() == null ? wrongItem(where) : checkString(where, e.getValue(), maxValueLength, valuePattern);
            if (v == null) {
                ok = false;
            } else {
                out.put(key, v);
            }
        }
        return ok ? Collections.unmodifiableMap(out) : null;
    }

    /** The checks of a nested object, or {@code null} when it is absent or not an object (then a problem is recorded). */
    Fields object(String field, Object value, boolean required) {
        if (value == null) {
            notGiven(name(field), required, "must be an object");
            return null;
        }
        return new Fields(binding, problems, name(field));
    }

    /** The checks of each nested object of a list; {@code null} when absent or when an item is not an object. */
    List<Fields> objects(String field, List<?> value, int maxItems) {
        if (value == null) {
            notGiven(name(field), false, "must be a list of objects");
            return null;
        }
        if (value.size() > maxItems) {
            problem(name(field), "must have at most " + maxItems + " items");
            return null;
        }
        List<Fields> out = new ArrayList<>(value.size());
        for (int i = 0; i < value.size(); i++) {
            String where = name(field) + "[" + i + "]";
            if (value.get(i) == null) {
                problem(where, "must be an object");
            } else {
                out.add(new Fields(binding, problems, where));
            }
        }
        return out.size() == value.size() ? out : null;
    }

    /** Whether the field was given with a value, even one of the wrong type. */
    boolean given(String field, Object value) {
        return value != null || binding.wrongType(name(field));
    }

    /** Whether the field came as an explicit {@code null} (which can mean "remove"). */
    boolean givenNull(String field) {
        return binding.givenNull(name(field));
    }

    /** Adds a problem found by a rule beyond one field's constraints; the empty field is this object itself. */
    void reject(String field, String problem) {
        problem(field.isEmpty() ? path : name(field), problem);
    }

    /** Refuses the fields of the bound object that are not fields of this method. Call once per object, after checking it. */
    Fields finish(Object bound) {
        for (String field : binding.unknown(bound)) {
            problem(name(Input.shown(field)), "is not a field of this method");
        }
        return this;
    }

    boolean valid() {
        return problems.isEmpty();
    }

    /** Throws {@code INVALID_INPUT} naming every bad field, if there is any. */
    void throwIfInvalid() {
        if (!problems.isEmpty()) {
            throw Input.invalid(problems);
        }
    }
}
