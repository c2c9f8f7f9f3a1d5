package com.bettercompute.adapters.k8s.simulator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The two merge patches {@code kubectl} sends, applied here because the CRUD mock gets them wrong (it
 * appends arrays and ignores {@code null}, and refuses strategic merge): a JSON merge patch (RFC 7386)
 * exactly, and a strategic merge patch approximately — without the schema's merge keys, a list is
 * replaced unless the patch names its order ({@code $setElementOrder/<field>}, which {@code kubectl apply}
 * and {@code kubectl cordon}/{@code taint} send for keyed lists), in which case elements are merged by the
 * key the order names; {@code $patch: delete|replace}, {@code $retainKeys} and
 * {@code $deleteFromPrimitiveList/<field>} are honoured.
 */
final class MergePatch {
    private MergePatch() {}

    /** RFC 7386: maps merge, {@code null} removes, anything else (lists too) replaces. */
    // By hand: no library here applies RFC 7386 (fabric8's zjsonpatch is RFC 6902 JSON Patch; Jackson has no merge patch).
    static Object json(Object target, Object patch) {
        if (!(patch instanceof Map<?, ?> p)) {
            return Obj.copy(patch);
        }
        Map<String, Object> out = target instanceof Map<?, ?> ? Obj.copy(Obj.map(target)) : new LinkedHashMap<>();
        p.forEach((k, v) -> {
            String key = (String) k;
            if (v == null) {
                out.remove(key);
            } else {
                out.put(key, json(out.get(key), v));
            }
        });
        return out;
    }

    /** A strategic merge patch, approximated as the class says. */
    static Object strategic(Object target, Object patch) {
        if (!(patch instanceof Map<?, ?>)) {
            return Obj.copy(patch);
        }
        Map<String, Object> p = Obj.map(patch);
        if ("replace".equals(p.get("$patch"))) {
            Map<String, Object> replaced = Obj.copy(p);
            replaced.remove("$patch");
            return strip(replaced);
        }
        Map<String, Object> out = target instanceof Map<?, ?> ? Obj.copy(Obj.map(target)) : new LinkedHashMap<>();
        if (p.get("$retainKeys") instanceof List<?> retain) {
            out.keySet().removeIf(k -> !retain.contains(k) && !p.containsKey(k));
        }
        for (Map.Entry<String, Object> e : p.entrySet()) {
            String key = e.getKey();
            Object value = e.getValue();
            if (key.startsWith("$deleteFromPrimitiveList/")) {
                String field = key.substring("$deleteFromPrimitiveList/".length());
                List<Object> kept = new ArrayList<>(Obj.list(out.get(field)));
                kept.removeAll(Obj.list(value));
                out.put(field, kept);
            } else if (key.startsWith("$")) {
                continue;
            } else if (value == null) {
                out.remove(key);
            } else if (value instanceof List<?> list) {
                Object order = p.get("$setElementOrder/" + key);
                out.put(key, order instanceof List<?> o ? mergeList(Obj.list(out.get(key)), Obj.list(list), Obj.list(o)) : strip(Obj.copy(list)));
            } else {
                out.put(key, strategic(out.get(key), value));
            }
        }
        return out;
    }

    /** Merges a keyed list: the order names each element by its merge key; patch elements merge into the original's. */
    private static List<Object> mergeList(List<Object> original, List<Object> patch, List<Object> order) {
        if (order.isEmpty() || !(order.get(0) instanceof Map<?, ?> first) || first.size() != 1) {
            List<Object> primitives = new ArrayList<>(order);
            return primitives;
        }
        String mergeKey = (String) first.keySet().iterator().next();
        Map<Object, Object> byKey = new LinkedHashMap<>();
        original.forEach(o -> byKey.put(Obj.map(o).get(mergeKey), o));
        for (Object element : patch) {
            Map<String, Object> e = Obj.map(element);
            Object key = e.get(mergeKey);
            if ("delete".equals(e.get("$patch"))) {
                byKey.remove(key);
            } else {
                byKey.put(key, strategic(byKey.get(key), e));
            }
        }
        List<Object> out = new ArrayList<>();
        for (Object named : order) {
            Object key = Obj.map(named).get(mergeKey);
            if (byKey.containsKey(key)) {
                out.add(byKey.remove(key));
            }
        }
        out.addAll(byKey.values());
        return out;
    }

    private static Object strip(Object value) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> {
                if (!((String) k).startsWith("$")) {
                    out.put((String) k, strip(v));
                }
            });
            return out;
        }
        if (value instanceof List<?> l) {
            return new ArrayList<>(l.stream().map(MergePatch::strip).toList());
        }
        return value;
    }
}
