import { MissingDependencyError } from '../errors/missing-dependency.error';
import { optionalDependency } from './optional-dependency';

describe('optionalDependency', () => {
  it('loads the package on the first call only, and not before', () => {
    const load = jest.fn(() => ({ answer: 42 }));
    const dependency = optionalDependency('answer', 'the answer', load);
    expect(load).not.toHaveBeenCalled();
    expect(dependency().answer).toBe(42);
    expect(dependency()).toBe(dependency());
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('names the missing package, the feature that needs it and how to install it', () => {
    const dependency = optionalDependency('no-such-package-for-mcp', "auth: { mode: 'oauth' }", () =>
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('no-such-package-for-mcp'),
    );
    expect(dependency).toThrow(MissingDependencyError);
    expect(dependency).toThrow(
      `auth: { mode: 'oauth' } needs the package "no-such-package-for-mcp", which is not installed; fix: npm install no-such-package-for-mcp`,
    );
  });

  it('passes on other errors of the package unchanged', () => {
    const broken = new Error('the package threw while loading');
    const dependency = optionalDependency('broken', 'feature', () => {
      throw broken;
    });
    expect(dependency).toThrow(broken);
  });
});
