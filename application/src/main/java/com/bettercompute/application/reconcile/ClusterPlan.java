package com.bettercompute.application.reconcile;

import com.bettercompute.application.port.OperationStatus;
import com.bettercompute.application.port.ProviderException;
import com.bettercompute.domain.cluster.Cluster;
import com.bettercompute.domain.event.KubernetesEvent;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * What one reconcile pass does, decided up front by {@link ClusterDecider#decide} and run top to bottom by
 * {@link ReconcileCluster}: rows to save (each with its events and the time of the next look), at most one
 * provider call, and what to save whichever way the provider answers.
 */
public sealed interface ClusterPlan {

    /**
     * A row to save (its revision already set: bumped once when anything the API shows changed) with the events
     * it publishes, and when to look again ({@code next} null: never, the cluster is deleted).
     */
    record Write(Cluster row, List<KubernetesEvent> events, Duration next) {
        public Write {
            events = List.copyOf(events);
        }
    }

    /** No provider call: save the outcome. */
    record Save(Write outcome) implements ClusterPlan {}

    /**
     * One provider call. The intent is saved first, so a crash during the call leaves a row that says what was
     * asked; then the answer: {@link #accepted} with the operation the call started, or {@link #refused}.
     */
    record Call(Write intent, ProviderAction action, Write onAccepted, Function<ProviderException, Write> onRefused)
            implements ClusterPlan {

        /** The row to save once the provider accepted, remembering the operation to poll. */
        public Write accepted(String operation) {
            Cluster row = onAccepted.row();
            return new Write(row.toBuilder().progress(row.progress().started(operation)).build(), onAccepted.events(), onAccepted.next());
        }

        public Write refused(ProviderException e) {
            return onRefused.apply(e);
        }
    }

    /**
     * The difference the last call was to remove is still there: before calling that a failure, ask how its
     * operation ended ({@code operation} null: its name was lost, see {@link com.bettercompute.application.port.ClusterProvider#operation}).
     * Still running: save {@code whileRunning}; done: {@code whenDone} says what next.
     */
    record AskOperation(String operation, Write whileRunning, Function<OperationStatus, ClusterPlan> whenDone) implements ClusterPlan {
        public ClusterPlan then(OperationStatus status) {
            return status.done() ? whenDone.apply(status) : new Save(whileRunning);
        }
    }
}
