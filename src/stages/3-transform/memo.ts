/**
 * What a build's transformations learn about a project state that another transformation of the
 * same state would learn again: the buggy state's runs of the witness and of the other classes,
 * a step site's source model and its profile. A bug transformed at depths 1, 3, 5 and 10 starts
 * from the same state four times, and sequences that share their first operators share their
 * first states. Keys name a state by its content-addressed id and everything else the value
 * depends on; only values worth keeping are kept (a failed analysis is asked again). Shared by
 * the transformers of one build, whose working copies differ but whose states do not. It keeps
 * the `capacity` values asked for last: a build's later bugs do not need its first ones' runs.
 */
export class TransformMemo {
  private readonly values = new Map<string, Promise<unknown>>();

  constructor(private readonly capacity = 256) {}

  /** The value of `key`: computed once, then shared, while `keep` holds for it. */
  remember<T>(key: string, compute: () => Promise<T>, keep: (value: T) => boolean = () => true) {
    const known = this.values.get(key) as Promise<T> | undefined;
    if (known) {
      // Asked for again: the last to be forgotten.
      this.values.delete(key);
      this.values.set(key, known);
      return known;
    }
    const computed = compute();
    this.values.set(key, computed);
    if (this.values.size > this.capacity) this.values.delete(this.values.keys().next().value!);
    computed.then(
      (value) => {
        if (!keep(value)) this.values.delete(key);
      },
      () => this.values.delete(key),
    );
    return computed;
  }
}
