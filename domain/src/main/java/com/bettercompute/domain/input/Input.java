package com.bettercompute.domain.input;

import com.bettercompute.domain.DomainException;
import com.bettercompute.domain.ErrorCode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rules every input shares, whoever reads it: what text may be stored, how a caller's key is shown in
 * a problem, and the one {@code INVALID_INPUT} error naming every bad field. Reading a request's JSON is
 * the HTTP adapter's; it comes here with typed values.
 */
public final class Input {
    /** Past this many characters a caller's key is cut short where a problem names it. */
    public static final int MAX_SHOWN = 100;

    private Input() {}

    /** A caller's key as problems name it: cut short past {@value #MAX_SHOWN} characters, so an error never echoes a huge key. */
    public static String shown(String key) {
        if (key.length() <= MAX_SHOWN) {
            return key;
        }
        int cut = Character.isHighSurrogate(key.charAt(MAX_SHOWN - 1)) ? MAX_SHOWN - 1 : MAX_SHOWN;
        return key.substring(0, cut) + "…(" + key.length() + " characters)";
    }

    /**
     * Whether the string is storable text: no NUL (which PostgreSQL's text cannot hold) and no unpaired
     * surrogate (which is no Unicode character, so no database or JSON writer can keep it as it came).
     */
    public static boolean isText(String s) {
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

    /** {@code INVALID_INPUT} naming every bad field in {@code details.fields}, the first also in the message. */
    public static DomainException invalid(List<FieldProblem> problems) {
        List<Map<String, Object>> fields = new ArrayList<>();
        for (FieldProblem p : problems) {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("field", p.field());
            if (p.in() != null) {
                f.put("in", p.in());
            }
            f.put("problem", p.problem());
            if (p.allowed() != null) {
                f.put("allowed", p.allowed());
            }
            fields.add(f);
        }
        String first = problems.get(0).field().isEmpty() ? problems.get(0).problem() : problems.get(0).field() + " " + problems.get(0).problem();
        String message = problems.size() == 1 ? "Invalid input: " + first + "." : "Invalid input: " + first + " (and " + (problems.size() - 1) + " more).";
        return new DomainException(ErrorCode.INVALID_INPUT, message, Map.of("fields", fields));
    }

    public static DomainException invalid(String field, String problem) {
        return invalid(List.of(new FieldProblem(field, problem)));
    }
}
