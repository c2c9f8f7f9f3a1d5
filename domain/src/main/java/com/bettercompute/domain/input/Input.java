package com.bettercompute.domain.input;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Reads one JSON object of a request (as plain JDK values: {@code Map}, {@code List}, {@code String},
 * {@code Number}, {@code Boolean}, {@code null}) against the constraints of a method's input table,
 * collecting every problem instead of stopping at the first, so {@code details} names each bad field.
 *
 * <p>Each reader call names a field as known; {@link #finish()} then refuses every field that no call
 * named, so a typo never silently does nothing. A field that is absent or JSON {@code null} counts as
 * not given. Getters return {@code null} (or the default) for a bad or absent field; callers must call
 * {@link #throwIfInvalid()} before using what they read.
 */
public final class Input {
    private final List<FieldProblem> problems;
    private final String path;
    private final Map<String, Object> map;
    private final Set<String> known = new LinkedHashSet<>();

    private Input(List<FieldProblem> problems, String path, Map<String, Object> map) {
        this.problems = problems;
        this.path = path;
        this.map = map;
    }

    /** The request body; anything but a JSON object is one problem on the body itself. */
    @SuppressWarnings("unchecked")
    public static Input of(Object body) {
        List<FieldProblem> problems = new ArrayList<>();
        if (body instanceof Map<?, ?> m) {
            return new Input(problems, "", (Map<String, Object>) m);
        }
        problems.add(new FieldProblem("", "the body must be a JSON object"));
        return new Input(problems, "", Map.of());
    }

    private String name(String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    private void problem(String field, String problem) {
        problems.add(new FieldProblem(field, problem));
    }

    private Object raw(String field, boolean required) {
        known.add(field);
        Object value = map.get(field);
        if (value == null && required) {
            problem(name(field), "is required");
        }
        return value;
    }

    /** A caller's key as problems name it: cut short past {@value #MAX_SHOWN} characters, so an error never echoes a huge key. */
    static String shown(String key) {
        if (key.length() <= MAX_SHOWN) {
            return key;
        }
        int cut = Character.isHighSurrogate(key.charAt(MAX_SHOWN - 1)) ? MAX_SHOWN - 1 : MAX_SHOWN;
        return key.substring(0, cut) + "…(" + key.length() + " characters)";
    }

    static final int MAX_SHOWN = 100;

    /** Whether the field is present with a non-null value. Marks it known. */
    public boolean has(String field) {
        known.add(field);
        return map.get(field) != null;
    }

    /** Whether the field is present at all, even with a null value (an explicit {@code null} can mean "remove"). Marks it known. */
    public boolean present(String field) {
        known.add(field);
        return map.containsKey(field);
    }

    public String string(String field, boolean required, int maxLength, Pattern pattern) {
        return checkString(name(field), raw(field, required), maxLength, pattern);
    }

    private String checkString(String where, Object value, int maxLength, Pattern pattern) {
        if (value == null) {
            return null;
        }
        if (!(value instanceof String s)) {
            problem(where, "must be a string");
            return null;
        }
        if (s.length() > maxLength) {
            problem(where, "must be at most " + maxLength + " characters");
            return null;
        }
        if (!isText(s)) {
            problem(where, "must be text without NUL characters or unpaired surrogates");
            return null;
        }
        if (pattern != null && !pattern.matcher(s).matches()) {
            problem(where, "must match " + pattern.pattern());
            return null;
        }
        return s;
    }

    /**
     * Whether the string is storable text: no NUL (which PostgreSQL's text cannot hold) and no unpaired
     * surrogate (which is no Unicode character, so no database or JSON writer can keep it as it came).
     */
    static boolean isText(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 0) {
                return false;
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /** One of the given wire values; {@code fallback} when absent. */
    public <E extends Enum<E>> E oneOf(String field, boolean required, Map<String, E> values, E fallback) {
        Object value = raw(field, required);
        if (value == null) {
            return fallback;
        }
        if (value instanceof String s && values.containsKey(s)) {
            return values.get(s);
        }
        problem(name(field), "must be one of " + String.join(", ", values.keySet()));
        return null;
    }

    public Integer integer(String field, boolean required, long min, long max) {
        return checkInteger(name(field), raw(field, required), min, max);
    }

    private Integer checkInteger(String where, Object value, long min, long max) {
        if (value == null) {
            return null;
        }
        BigInteger whole = wholeNumber(value);
        if (whole == null) {
            problem(where, "must be an integer");
            return null;
        }
        if (whole.compareTo(BigInteger.valueOf(min)) < 0 || whole.compareTo(BigInteger.valueOf(max)) > 0) {
            problem(where, "must be between " + min + " and " + max);
            return null;
        }
        return whole.intValueExact();
    }

    /** A JSON integer; a number written with a fraction or exponent is not one, even {@code 2.0}. */
    private static BigInteger wholeNumber(Object value) {
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
            return BigInteger.valueOf(((Number) value).longValue());
        }
        if (value instanceof BigInteger b) {
            return b;
        }
        return null;
    }

    public Boolean bool(String field, Boolean fallback) {
        Object value = raw(field, false);
        if (value == null) {
            return fallback;
        }
        if (value instanceof Boolean b) {
            return b;
        }
        problem(name(field), "must be a boolean");
        return null;
    }

    /** A list of strings, each checked; {@code null} when absent. */
    public List<String> strings(String field, int maxItems, int maxLength, Pattern pattern) {
        Object value = raw(field, false);
        if (value == null) {
            return null;
        }
        if (!(value instanceof List<?> list)) {
            problem(name(field), "must be a list of strings");
            return null;
        }
        if (list.size() > maxItems) {
            problem(name(field), "must have at most " + maxItems + " items");
            return null;
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String s = checkString(name(field) + "[" + i + "]", list.get(i) == null ? NULL_ITEM : list.get(i), maxLength, pattern);
            if (s != null) {
                out.add(s);
            }
        }
        return out.size() == list.size() ? List.copyOf(out) : null;
    }

    /** A map of string to string, each key and value checked; {@code null} when absent. Sorted by key. */
    public Map<String, String> stringMap(String field, int maxEntries, int maxKeyLength, Pattern keyPattern, int maxValueLength, Pattern valuePattern) {
        Object value = raw(field, false);
        if (value == null) {
            return null;
        }
        if (!(value instanceof Map<?, ?> m)) {
            problem(name(field), "must be an object of strings");
            return null;
        }
        if (m.size() > maxEntries) {
            problem(name(field), "must have at most " + maxEntries + " entries");
            return null;
        }
        Map<String, String> out = new TreeMap<>();
        boolean ok = true;
        for (Map.Entry<?, ?> e : m.entrySet()) {
            String key = String.valueOf(e.getKey());
            String where = name(field) + "." + shown(key);
            if (key.length() > maxKeyLength || (keyPattern != null && !keyPattern.matcher(key).matches())) {
                problem(where, "key must be at most " + maxKeyLength + " characters and match " + keyPattern.pattern());
                ok = false;
                continue;
            }
            String v = checkString(where, e.getValue() == null ? NULL_ITEM : e.getValue(), maxValueLength, valuePattern);
            if (v == null) {
                ok = false;
            } else {
                out.put(key, v);
            }
        }
        return ok ? Collections.unmodifiableMap(out) : null;
    }

    /** A nested object, or {@code null} when absent or not an object (then a problem is recorded). */
    @SuppressWarnings("unchecked")
    public Input object(String field, boolean required) {
        Object value = raw(field, required);
        if (value == null) {
            return null;
        }
        if (value instanceof Map<?, ?> m) {
            return new Input(problems, name(field), (Map<String, Object>) m);
        }
        problem(name(field), "must be an object");
        return null;
    }

    /** A list of nested objects; {@code null} when absent or malformed. */
    @SuppressWarnings("unchecked")
    public List<Input> objects(String field, int maxItems) {
        Object value = raw(field, false);
        if (value == null) {
            return null;
        }
        if (!(value instanceof List<?> list)) {
            problem(name(field), "must be a list of objects");
            return null;
        }
        if (list.size() > maxItems) {
            problem(name(field), "must have at most " + maxItems + " items");
            return null;
        }
        List<Input> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            Object item = list.get(i);
            String where = name(field) + "[" + i + "]";
            if (item instanceof Map<?, ?> m) {
                out.add(new Input(problems, where, (Map<String, Object>) m));
            } else {
                problem(where, "must be an object");
            }
        }
        return out.size() == list.size() ? out : null;
    }

    /** Adds a problem found by a rule beyond one field's constraints. */
    public void reject(String field, String problem) {
        problem(field.isEmpty() ? path : name(field), problem);
    }

    /** Refuses the fields no reader named. Call once per object, after reading it. */
    public Input finish() {
        for (String field : map.keySet()) {
            if (!known.contains(field)) {
                problem(name(shown(field)), "is not a field of this method");
            }
        }
        return this;
    }

    public boolean valid() {
        return problems.isEmpty();
    }

    public List<FieldProblem> problems() {
        return List.copyOf(problems);
    }

    /** Throws {@code INVALID_INPUT} naming every bad field, if there is any. */
    public void throwIfInvalid() {
        if (!problems.isEmpty()) {
            throw invalid(problems);
        }
    }

    public static DomainException invalid(List<FieldProblem> problems) {
        List<Map<String, Object>> fields = new ArrayList<>();
        for (FieldProblem p : problems) {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("field", p.field());
            f.put("problem", p.problem());
            fields.add(f);
        }
        String first = problems.get(0).field().isEmpty() ? problems.get(0).problem() : problems.get(0).field() + " " + problems.get(0).problem();
        String message = problems.size() == 1 ? "Invalid input: " + first + "." : "Invalid input: " + first + " (and " + (problems.size() - 1) + " more).";
        return new DomainException(ErrorCode.INVALID_INPUT, message, Map.of("fields", fields));
    }

    public static DomainException invalid(String field, String problem) {
        return invalid(List.of(new FieldProblem(field, problem)));
    }

    /** A JSON null inside a list or map: reported as the wrong type rather than skipped. */
    private static final Object NULL_ITEM = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };
}
