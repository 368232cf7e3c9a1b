/**
 * The deterministic engine's version. Bump on any change to what the engine adds for the same
 * input (2: the guard's alternatives; 3: Stage II; 4: the class a catch took is checked, a catch
 * gold never entered fails, and calls to the slice's methods are added; 5: no-fix always in the
 * generating half, `x + 0` written `x`, no "expected" comment left beside a fail()). Reports and
 * the cached alternatives are keyed by it, so a bump redoes both.
 */
export const ENGINE_VERSION = 5;
