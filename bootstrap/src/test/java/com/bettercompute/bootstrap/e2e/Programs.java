package com.bettercompute.bootstrap.e2e;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Programs the end-to-end tests drive when the machine has them ({@code gcloud}, {@code kubectl}). */
final class Programs {
    private Programs() {}

    /** The absolute path of an executable of that name on the PATH. */
    static Optional<String> find(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate.toAbsolutePath().toString());
            }
        }
        return Optional.empty();
    }
}
