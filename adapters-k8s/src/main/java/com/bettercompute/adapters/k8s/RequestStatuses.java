package com.bettercompute.adapters.k8s;

import com.bettercompute.application.port.MarketClusterClient.Condition;
import com.bettercompute.application.port.MarketClusterClient.RequestStatus;
import io.x_k8s.autoscaling.v1.ProvisioningRequest;
import io.x_k8s.autoscaling.v1.ProvisioningRequestStatus;
import io.x_k8s.autoscaling.v1.provisioningrequeststatus.Conditions;

import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** A ProvisioningRequest's status with the market's conditions and class details merged in. */
final class RequestStatuses {
    private RequestStatuses() {
    }

    /**
     * Sets each wanted condition by type (keeping the transition time of one whose status did not change)
     * and merges the class details into the request's status.
     *
     * @return whether anything changed
     */
    static boolean merge(ProvisioningRequest request, RequestStatus wanted) {
        ProvisioningRequestStatus status = request.getStatus() == null ? new ProvisioningRequestStatus() : request.getStatus();
        List<Conditions> conditions = new ArrayList<>(status.getConditions() == null ? List.of() : status.getConditions());
        boolean changed = false;
        for (Condition c : wanted.conditions()) {
            int at = indexOf(conditions, c.type());
            Conditions had = at < 0 ? new Conditions() : conditions.get(at);
            boolean sameStatus = had.getStatus() != null && c.status().equals(had.getStatus().getValue());
            if (sameStatus && c.reason().equals(had.getReason()) && Objects.equals(c.message(), had.getMessage())) {
                continue;
            }
            Conditions next = new Conditions();
            next.setType(c.type());
            next.setStatus(status(c.status()));
            next.setReason(c.reason());
            next.setMessage(c.message());
            next.setLastTransitionTime(sameStatus && had.getLastTransitionTime() != null
                    ? had.getLastTransitionTime() : c.lastTransition().atZone(ZoneOffset.UTC));
            next.setObservedGeneration(request.getMetadata().getGeneration());
            if (at < 0) {
                conditions.add(next);
            } else {
                conditions.set(at, next);
            }
            changed = true;
        }
        Map<String, String> details = new LinkedHashMap<>(status.getProvisioningClassDetails() == null
                ? Map.of() : status.getProvisioningClassDetails());
        for (Map.Entry<String, String> d : wanted.classDetails().entrySet()) {
            if (!d.getValue().equals(details.get(d.getKey()))) {
                details.put(d.getKey(), d.getValue());
                changed = true;
            }
        }
        if (changed) {
            status.setConditions(conditions);
            if (!details.isEmpty()) {
                status.setProvisioningClassDetails(details);
            }
            request.setStatus(status);
        }
        return changed;
    }

    private static Conditions.Status status(String wire) {
        for (Conditions.Status s : Conditions.Status.values()) {
            if (s.getValue().equals(wire)) {
                return s;
            }
        }
        throw new IllegalArgumentException("A condition's status is True, False or Unknown, not " + wire);
    }

    private static int indexOf(List<Conditions> conditions, String type) {
        for (int i = 0; i < conditions.size(); i++) {
            if (type.equals(conditions.get(i).getType())) {
                return i;
            }
        }
        return -1;
    }
}
