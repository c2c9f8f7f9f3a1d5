package com.bettercompute.bootstrap.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

import java.util.List;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The arrows of DESIGN.md: the domain knows only the JDK; the application knows no library of an
 * adapter; adapters never know each other; no product package knows a simulator; only bootstrap reads the
 * wall clock or sleeps. Each rule is also shown to fail on a class that breaks it (the {@code archfixture}
 * packages of the tests), so none can pass vacuously.
 */
class ArchitectureTest {
    static final String BASE = "com.bettercompute";
    static final List<String> ADAPTERS = List.of("http", "gke", "k8s", "persistence");

    static final JavaClasses PRODUCT = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            // the other modules' test jars (their worlds and fakes) are on this module's test classpath
            .withImportOption(location -> !location.contains("-tests.jar"))
            .importPackages(BASE);

    /** Test-only classes that break each rule, in the packages the rules watch. */
    static final JavaClasses FIXTURES = new ClassFileImporter()
            .importPackages(BASE + ".domain.archfixture", BASE + ".application.archfixture",
                    BASE + ".adapters.gke.archfixture", BASE + ".adapters.http.archfixture");

    static final ArchRule DOMAIN_KNOWS_ONLY_THE_JDK = classes().that().resideInAPackage(BASE + ".domain..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("java..", BASE + ".domain..")
            .as("domain depends on nothing but the JDK");

    static final ArchRule APPLICATION_KNOWS_NO_ADAPTER_LIBRARY = noClasses().that().resideInAPackage(BASE + ".application..")
            .should().dependOnClassesThat().resideInAnyPackage(
                    "io.javalin..", "org.jdbi..", "io.fabric8..", "com.google..", "io.grpc..",
                    "com.github.benmanes.caffeine..", "org.flywaydb..", "com.zaxxer..", "com.fasterxml..",
                    BASE + ".adapters..", BASE + ".bootstrap..")
            .as("application depends on no adapter and no adapter library");

    /**
     * The embedded default's test doubles and what drives them: the GKE simulator and the simulated Kubernetes API
     * ({@code ..simulator..}), the market simulation and the load runners. Only bootstrap, which wires them, knows them.
     */
    static final String[] SIMULATORS = {"..simulator..", BASE + ".bootstrap.market..", BASE + ".bootstrap.load.."};

    static final ArchRule NO_PRODUCT_PACKAGE_KNOWS_A_SIMULATOR = noClasses()
            .that().resideInAnyPackage(BASE + ".domain..", BASE + ".application..", BASE + ".adapters..")
            .and().resideOutsideOfPackage("..simulator..")
            .should().dependOnClassesThat().resideInAnyPackage(SIMULATORS)
            .as("no product package depends on a simulator, the market simulation or a load runner");

    static final ArchRule ONLY_BOOTSTRAP_READS_THE_CLOCK_OR_SLEEPS = noClasses().that().resideOutsideOfPackage(BASE + ".bootstrap..")
            .should().callMethod(java.time.Instant.class, "now")
            .orShould().callMethod(System.class, "currentTimeMillis")
            .orShould().callMethod(System.class, "nanoTime")
            .orShould().callMethod(java.time.LocalDateTime.class, "now")
            .orShould().callMethod(java.time.OffsetDateTime.class, "now")
            .orShould().callMethod(java.time.ZonedDateTime.class, "now")
            .orShould().callMethod(java.time.LocalDate.class, "now")
            .orShould().callMethod(java.time.Clock.class, "systemUTC")
            .orShould().callMethod(java.time.Clock.class, "systemDefaultZone")
            .orShould().callMethod(Thread.class, "sleep", long.class)
            .orShould().callMethod(Thread.class, "sleep", long.class, int.class)
            .orShould().callMethod(Thread.class, "sleep", java.time.Duration.class)
            .as("nothing outside bootstrap reads the wall clock or sleeps");

    static ArchRule adapterKnowsNoOtherAdapter(String adapter) {
        String[] others = ADAPTERS.stream().filter(a -> !a.equals(adapter)).map(a -> BASE + ".adapters." + a + "..").toArray(String[]::new);
        return noClasses().that().resideInAPackage(BASE + ".adapters." + adapter + "..")
                .should().dependOnClassesThat().resideInAnyPackage(others)
                .orShould().dependOnClassesThat().resideInAPackage(BASE + ".bootstrap..")
                .as("adapters-" + adapter + " depends on no other adapter");
    }

    @Test
    void domain_depends_on_the_jdk_only() {
        DOMAIN_KNOWS_ONLY_THE_JDK.check(PRODUCT);
    }

    @Test
    void application_depends_on_no_adapter_or_adapter_library() {
        APPLICATION_KNOWS_NO_ADAPTER_LIBRARY.check(PRODUCT);
    }

    @Test
    void adapters_never_depend_on_each_other() {
        for (String adapter : ADAPTERS) {
            adapterKnowsNoOtherAdapter(adapter).allowEmptyShould(true).check(PRODUCT);
        }
    }

    @Test
    void no_product_package_depends_on_a_simulator() {
        NO_PRODUCT_PACKAGE_KNOWS_A_SIMULATOR.check(PRODUCT);
    }

    @Test
    void nothing_outside_bootstrap_reads_the_wall_clock_or_sleeps() {
        ONLY_BOOTSTRAP_READS_THE_CLOCK_OR_SLEEPS.check(PRODUCT);
    }

    @Test
    void each_rule_fails_on_a_class_that_breaks_it() {
        assertThatThrownBy(() -> DOMAIN_KNOWS_ONLY_THE_JDK.check(FIXTURES)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("DomainUsingALibrary");
        assertThatThrownBy(() -> APPLICATION_KNOWS_NO_ADAPTER_LIBRARY.check(FIXTURES)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("ApplicationUsingJavalin");
        assertThatThrownBy(() -> adapterKnowsNoOtherAdapter("gke").check(FIXTURES)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("GkeUsingPersistence");
        assertThatThrownBy(() -> NO_PRODUCT_PACKAGE_KNOWS_A_SIMULATOR.check(FIXTURES)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("GkeUsingTheSimulator").hasMessageContaining("ApplicationUsingTheMarketSimulation");
        assertThatThrownBy(() -> ONLY_BOOTSTRAP_READS_THE_CLOCK_OR_SLEEPS.check(FIXTURES)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("ReadsTheClock").hasMessageContaining("Sleeps");
    }
}
