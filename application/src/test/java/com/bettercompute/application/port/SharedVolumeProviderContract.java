package com.bettercompute.application.port;

import com.bettercompute.application.port.SharedVolumeProvider.Status;
import com.bettercompute.application.port.SharedVolumeProvider.VolumeLocator;
import com.bettercompute.application.port.SharedVolumeProvider.VolumeObservation;
import com.bettercompute.application.port.SharedVolumeProvider.VolumeSpec;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every {@link SharedVolumeProvider} must do: run on the in-memory fake and on the GKE simulator's Filestore API
 * through the official client.
 */
public abstract class SharedVolumeProviderContract {
    protected static final VolumeLocator AT = new VolumeLocator("demo-proj", "us-central1-a", "bc-v-0123456789abcdefghjkmnpq");
    protected static final String VOLUME = "kvol_0123456789abcdefghjkmnpqrs";

    protected abstract SharedVolumeProvider provider();

    /** Moves time (or the simulator) past every operation started. */
    protected abstract void letOperationsFinish();

    protected abstract void createForeign(VolumeLocator at);

    protected abstract void failNextOperation(String message);

    /** Puts {@code bytes} of files on the instance (a file written through the mount). */
    protected abstract void writeBytes(VolumeLocator at, long bytes);

    @Test
    void a_missing_instance_is_absent_not_an_error() {
        assertThat(provider().observe(AT).exists()).isFalse();
    }

    @Test
    void an_instance_is_created_with_our_label_and_size_then_becomes_ready_with_an_address() {
        String op = provider().create(new VolumeSpec(AT, VOLUME, "acme", 2048));
        assertThat(op).isNotBlank();
        VolumeObservation creating = provider().observe(AT);
        assertThat(creating.exists()).isTrue();
        assertThat(creating.volumeId()).isEqualTo(VOLUME);
        assertThat(creating.status()).isEqualTo(Status.CREATING);
        assertThat(provider().operation(AT, op).done()).isFalse();

        letOperationsFinish();

        assertThat(provider().operation(AT, op)).isEqualTo(OperationStatus.SUCCEEDED);
        VolumeObservation ready = provider().observe(AT);
        assertThat(ready.status()).isEqualTo(Status.READY);
        assertThat(ready.capacityGiB()).isEqualTo(2048);
        assertThat(ready.address()).isNotBlank();
        assertThat(ready.share()).isNotBlank();
    }

    @Test
    void creating_our_instance_again_adopts_it_and_a_foreign_one_is_never_adopted_nor_deleted() {
        provider().create(new VolumeSpec(AT, VOLUME, "acme", 1024));
        assertThat(provider().create(new VolumeSpec(AT, VOLUME, "acme", 1024))).isNull();

        VolumeLocator foreign = new VolumeLocator(AT.project(), AT.location(), "someone-elses");
        createForeign(foreign);
        assertThatThrownBy(() -> provider().create(new VolumeSpec(foreign, VOLUME, "acme", 1024)))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(ProviderException.Kind.FOREIGN));
        assertThatThrownBy(() -> provider().delete(foreign, VOLUME))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(ProviderException.Kind.FOREIGN));
        assertThat(provider().observe(foreign).exists()).isTrue();
        assertThat(provider().observe(foreign).volumeId()).isNull();
    }

    @Test
    void a_size_below_the_tiers_minimum_is_refused_as_invalid() {
        assertThatThrownBy(() -> provider().create(new VolumeSpec(AT, VOLUME, "acme", 100)))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(ProviderException.Kind.INVALID));
        assertThat(provider().observe(AT).exists()).isFalse();
    }

    @Test
    void a_delete_removes_it_and_deleting_what_is_gone_is_a_success() {
        provider().create(new VolumeSpec(AT, VOLUME, "acme", 1024));
        letOperationsFinish();
        String op = provider().delete(AT, VOLUME);
        letOperationsFinish();
        assertThat(provider().operation(AT, op)).isEqualTo(OperationStatus.SUCCEEDED);
        assertThat(provider().observe(AT).exists()).isFalse();
        assertThat(provider().delete(AT, VOLUME)).isNull();
    }

    @Test
    void a_failed_create_is_reported_with_its_message_and_leaves_the_instance_in_error() {
        failNextOperation("no capacity for BASIC_HDD in us-central1-a");
        String op = provider().create(new VolumeSpec(AT, VOLUME, "acme", 1024));
        letOperationsFinish();
        OperationStatus status = provider().operation(AT, op);
        assertThat(status.done()).isTrue();
        assertThat(status.error()).contains("no capacity");
        assertThat(provider().observe(AT).status()).isEqualTo(Status.ERROR);
    }

    @Test
    void the_bytes_held_are_what_its_files_hold_and_a_missing_instance_has_none() {
        provider().create(new VolumeSpec(AT, VOLUME, "acme", 1024));
        letOperationsFinish();
        assertThat(provider().usedBytes(AT)).hasValue(0);
        writeBytes(AT, 12_345);
        assertThat(provider().usedBytes(AT)).hasValue(12_345);
        assertThatThrownBy(() -> provider().usedBytes(new VolumeLocator(AT.project(), AT.location(), "bc-v-none")))
                .isInstanceOfSatisfying(ProviderException.class, e -> assertThat(e.kind()).isEqualTo(ProviderException.Kind.NOT_FOUND));
    }
}
