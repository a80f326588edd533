import { resolveApprovalPolicy } from './approval-policy';

const STDIO = { http: false, stdio: true, authMode: 'apiKey' };
const HTTP = { http: true, stdio: false, authMode: 'apiKey' };

function resolve(approvals: unknown, context = STDIO) {
  const problems: string[] = [];
  const fixes: string[] = [];
  const policy = resolveApprovalPolicy(approvals, context, (option, problem, fix) => {
    problems.push(`${option}: ${problem}`);
    fixes.push(fix);
  });
  return { policy, problems, fixes };
}

describe('resolveApprovalPolicy', () => {
  it('lets no one decide their own request unless allowSelfApproval (on without authentication)', () => {
    expect(resolve(undefined, HTTP).policy.allowSelfApproval).toBe(false);
    expect(resolve({ allowSelfApproval: true }, HTTP).policy.allowSelfApproval).toBe(true);
    expect(resolve(undefined, { ...HTTP, authMode: 'none' }).policy.allowSelfApproval).toBe(true);
    expect(resolve({ allowSelfApproval: false }, { ...HTTP, authMode: 'none' }).policy.allowSelfApproval).toBe(false);
    const { problems, fixes } = resolve({ allowSelfApproval: 'yes' }, HTTP);
    expect(problems).toEqual(['approvals.allowSelfApproval: must be true or false']);
    expect(fixes[0]).toMatch(/^set allowSelfApproval: false \(an approver other than the caller decides\)/);
  });

  it('gives a stdio host without HTTP its approval page, on any free port unless one is given', () => {
    expect(resolve(undefined).policy.stdioPage).toEqual({ port: 0, always: false });
    expect(resolve({ stdioPage: true }).policy.stdioPage).toEqual({ port: 0, always: true });
    expect(resolve({ stdioPage: { port: 7411 } }).policy.stdioPage).toEqual({ port: 7411, always: true });
    expect(resolve({ stdioPage: false }).policy.stdioPage).toBeUndefined();
    // With HTTP the page is the dashboard's; without stdio there is no call to approve there.
    expect(resolve(undefined, HTTP).policy.stdioPage).toBeUndefined();
    expect(resolve(undefined, { ...STDIO, stdio: false }).policy.stdioPage).toBeUndefined();
  });

  it('reports every bad stdioPage at once, each with its fix', () => {
    expect(resolve({ stdioPage: { port: 70_000, host: '0.0.0.0' } }).problems).toEqual([
      'approvals.stdioPage.host: is not a known option',
      'approvals.stdioPage.port: must be an integer from 0 to 65535, got 70000',
    ]);
    expect(resolve({ stdioPage: 'on' }).problems).toEqual([
      'approvals.stdioPage: must be true, false or an object, got "on"',
    ]);
    const withHttp = resolve({ stdioPage: { port: 7411 } }, HTTP);
    expect(withHttp.problems).toEqual([
      'approvals.stdioPage: only applies to a host without HTTP: with HTTP the approval page is the admin dashboard’s',
    ]);
    expect(withHttp.fixes).toEqual([
      'remove it, and reach the approval page at <admin path>#approval=<id> on the HTTP server',
    ]);
    expect(resolve({ stdioPage: true }, { ...STDIO, stdio: false }).problems).toEqual([
      'approvals.stdioPage: only applies to a host that serves stdio',
    ]);
  });
});
