package dev.vtlab.testsupport;

/**
 * The library versions this build resolved, handed to the tests by Maven (surefire's systemPropertyVariables
 * in services/pom.xml): what a service must report it runs with, without a test typing a version in.
 */
public final class BuildVersions {

    private BuildVersions() {
    }

    public static String springBoot() {
        return of("spring-boot");
    }

    public static String hikariCp() {
        return of("hikaricp");
    }

    public static String agroal() {
        return of("agroal");
    }

    public static String r2dbcPool() {
        return of("r2dbc-pool");
    }

    private static String of(String library) {
        String version = System.getProperty("vtlab.version." + library);
        // Unset, or left as Maven's unresolved ${...}: the test was not started by this build's surefire.
        if (version == null || version.isBlank() || version.contains("${")) {
            throw new IllegalStateException("The build did not pass the version of " + library
                    + " (system property vtlab.version." + library + ", got '" + version + "'): run the tests with "
                    + "Maven (services/pom.xml sets it for surefire), e.g. ./vtlab test.");
        }
        return version;
    }
}
