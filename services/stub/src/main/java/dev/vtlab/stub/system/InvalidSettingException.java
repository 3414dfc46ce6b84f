package dev.vtlab.stub.system;

/** A start-up setting (environment variable) with an unusable value; the message names the variable. */
public class InvalidSettingException extends IllegalStateException {

    private final String variable;

    public InvalidSettingException(String variable, String expectation, String actual) {
        super("%s must be %s, got '%s'".formatted(variable, expectation, actual));
        this.variable = variable;
    }

    public String variable() {
        return variable;
    }
}
