package com.bettercompute.application.reconcile;

import com.bettercompute.application.port.ProviderException;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.event.ClusterEvent;

import java.time.Duration;
import java.util.List;

/**
 * A plan as the decider tests read it: the row its first save writes ({@link #next()}), the call it makes,
 * the cluster events of that save, and the plans of the provider's two answers.
 */
record Decided(ClusterPlan plan) {
    /** The operation name the tests' provider "returns" on acceptance. */
    static final String OPERATION = "operation-accepted";

    private ClusterPlan.Write first() {
        if (plan instanceof ClusterPlan.Save s) {
            return s.outcome();
        }
        if (plan instanceof ClusterPlan.Call c) {
            return c.intent();
        }
        return ((ClusterPlan.AskOperation) plan).whileRunning();
    }

    boolean acts() {
        return plan instanceof ClusterPlan.Call;
    }

    boolean asksOperation() {
        return plan instanceof ClusterPlan.AskOperation;
    }

    /** The provider call; null when the plan makes none. */
    ProviderAction action() {
        return plan instanceof ClusterPlan.Call c ? c.action() : null;
    }

    Cluster next() {
        return first().row();
    }

    Duration requeue() {
        return first().next();
    }

    /** The wire names of the cluster events of the first save (its node pools' are read with NodePoolEvents). */
    List<String> events() {
        return first().events().stream().filter(e -> e instanceof ClusterEvent).map(e -> e.type()).toList();
    }

    Decided accepted() {
        return new Decided(new ClusterPlan.Save(((ClusterPlan.Call) plan).accepted(OPERATION)));
    }

    Decided refused(ProviderException e) {
        return new Decided(new ClusterPlan.Save(((ClusterPlan.Call) plan).refused(e)));
    }

    /** The plan once the provider said how the asked-for operation stands. */
    Decided then(com.bettercompute.application.port.OperationStatus status) {
        return new Decided(((ClusterPlan.AskOperation) plan).then(status));
    }
}
