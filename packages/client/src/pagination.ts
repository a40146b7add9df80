/** One page of a list, as the API answers it: newest first. */
export interface Page<T> {
  object: 'list';
  data: T[];
  hasMore: boolean;
}

/**
 * What `list()` returns: awaited, the first page; iterated with `for await`, every item of every
 * page, fetching the next page (`after` the last id) only when the previous one is used up.
 * Like any promise, the first page is requested at once, and only once.
 */
export class PagePromise<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  private readonly first: Promise<Page<T>>;

  constructor(private readonly fetchPage: (after: string | undefined) => Promise<Page<T>>) {
    this.first = fetchPage(undefined);
  }

  // biome-ignore lint/suspicious/noThenProperty: a page promise is meant to be awaited, as Stripe's list() is.
  then<A = Page<T>, B = never>(
    onfulfilled?: ((page: Page<T>) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.first.then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<Page<T> | B> {
    return this.first.catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<Page<T>> {
    return this.first.finally(onfinally);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let page = await this.first;
    for (;;) {
      yield* page.data;
      const last = page.data.at(-1) as { id?: unknown } | undefined;
      if (!page.hasMore || typeof last?.id !== 'string') return;
      page = await this.fetchPage(last.id);
    }
  }

  /**
   * Every item of every page, at most `limit` of them (default 10 000), as an array. It stops
   * as soon as it holds `limit` items, so the page after them is not requested.
   */
  async toArray(limit = 10_000): Promise<T[]> {
    const items: T[] = [];
    if (limit <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= limit) break;
    }
    return items;
  }

  get [Symbol.toStringTag](): string {
    return 'PagePromise';
  }
}
