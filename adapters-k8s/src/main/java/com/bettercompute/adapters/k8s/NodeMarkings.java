package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.MarketClusterClient.Cordon;
import com.bettercompute.application.port.MarketClusterClient.Cordoned;
import com.bettercompute.application.port.MarketClusterClient.NodeMarking;
import com.bettercompute.application.port.MarketClusterClient.NodeTaint;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** A node brought to carry a {@link NodeMarking}: labels, annotations, the market's taints, the market's cordon. */
final class NodeMarkings {
    private NodeMarkings() {
    }

    /** @return whether anything changed */
    static boolean apply(Node node, NodeMarking marking) {
        boolean changed = false;
        Map<String, String> labels = new LinkedHashMap<>(node.getMetadata().getLabels() == null ? Map.of()
                : node.getMetadata().getLabels());
        for (Map.Entry<String, String> l : marking.labels().entrySet()) {
            changed |= !l.getValue().equals(labels.put(l.getKey(), l.getValue()));
        }
        for (String gone : marking.removedLabels()) {
            changed |= labels.remove(gone) != null;
        }
        node.getMetadata().setLabels(labels);
        Map<String, String> annotations = new LinkedHashMap<>(node.getMetadata().getAnnotations() == null ? Map.of()
                : node.getMetadata().getAnnotations());
        for (Map.Entry<String, String> a : marking.annotations().entrySet()) {
            changed |= !a.getValue().equals(annotations.put(a.getKey(), a.getValue()));
        }
        node.getMetadata().setAnnotations(annotations);
        if (node.getSpec() == null) {
            node.setSpec(new NodeSpec());
        }
        List<Taint> had = node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
        List<Taint> taints = new ArrayList<>();
        for (Taint t : had) {
            if (!marking.ownedTaintKeys().contains(t.getKey())) {
                taints.add(t);
            }
        }
        for (NodeTaint t : marking.taints()) {
            Taint kept = had.stream().filter(h -> h.getKey().equals(t.key()) && Objects.equals(h.getValue(), t.value())
                    && h.getEffect().equals(t.effect())).findFirst().orElse(null);
            taints.add(kept != null ? kept : new TaintBuilder().withKey(t.key()).withValue(t.value()).withEffect(t.effect()).build());
        }
        changed |= !sameTaints(had, taints);
        node.getSpec().setTaints(taints);
        boolean cordoned = Boolean.TRUE.equals(node.getSpec().getUnschedulable());
        boolean marked = "true".equals(annotations.get(Cordon.MARK));
        Cordoned next = marking.cordon().next(cordoned, marked);
        if (cordoned != next.cordoned()) {
            node.getSpec().setUnschedulable(next.cordoned() ? Boolean.TRUE : null);
            changed = true;
        }
        if (marked != next.marked()) {
            if (next.marked()) {
                annotations.put(Cordon.MARK, "true");
            } else {
                annotations.remove(Cordon.MARK);
            }
            changed = true;
        }
        return changed;
    }

    private static boolean sameTaints(List<Taint> a, List<Taint> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (Taint t : b) {
            if (a.stream().noneMatch(h -> h.getKey().equals(t.getKey()) && Objects.equals(h.getValue(), t.getValue())
                    && h.getEffect().equals(t.getEffect()))) {
                return false;
            }
        }
        return true;
    }
}
