import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { fakeCliIo, type FakeTerminal } from '../testing/fake-cli-io';
import { terminalElicitation } from './terminal-elicitation';

type Params = ElicitRequest['params'];

/** The confirmation of a destructive tool, as the host's confirmation gate asks it. */
const CONFIRMATION: Params = {
  message: 'Close ticket T-1?',
  requestedSchema: {
    type: 'object',
    properties: { confirm: { type: 'boolean', title: 'Run it', description: 'Close ticket T-1?', default: false } },
    required: ['confirm'],
  },
};

/** A form of several fields, as a tool's own `ctx.elicit()` may ask. */
const FORM: Params = {
  message: 'Where should the report go?',
  requestedSchema: {
    type: 'object',
    properties: {
      format: { type: 'string', title: 'Format', enum: ['csv', 'pdf'], default: 'csv' },
      copies: { type: 'integer', title: 'Copies' },
      notify: { type: 'boolean', title: 'Notify the team' },
      recipient: { type: 'string', title: 'Recipient' },
      note: { type: 'string' },
    },
    required: ['copies', 'recipient'],
  },
};

function elicit(params: Params, { yes = false, ...terminal }: FakeTerminal & { yes?: boolean } = {}) {
  const io = fakeCliIo(terminal);
  return { io, answer: terminalElicitation(io, yes)(params) };
}

describe('terminalElicitation', () => {
  describe('with --yes', () => {
    it('confirms without asking, even on a terminal', async () => {
      const { io, answer } = elicit(CONFIRMATION, { yes: true, tty: true });
      await expect(answer).resolves.toEqual({ action: 'accept', content: { confirm: true } });
      expect(io.questions).toEqual([]);
    });

    it('answers every yes/no field yes and every other field its default', async () => {
      const params: Params = {
        message: 'Export?',
        requestedSchema: {
          type: 'object',
          properties: {
            confirm: { type: 'boolean', default: false },
            notify: { type: 'boolean' },
            format: { type: 'string', enum: ['csv', 'pdf'], default: 'pdf' },
            copies: { type: 'number', default: 2 },
            note: { type: 'string' },
          },
          required: ['confirm', 'format'],
        },
      };
      await expect(elicit(params, { yes: true }).answer).resolves.toEqual({
        action: 'accept',
        content: { confirm: true, notify: true, format: 'pdf', copies: 2 },
      });
    });

    it('declines when a required field other than yes/no has no default, naming it', async () => {
      const { io, answer } = elicit(FORM, { yes: true, tty: true });
      await expect(answer).resolves.toEqual({ action: 'decline' });
      expect(io.err).toBe(
        'Where should the report go?\nNot answered: --yes cannot fill "copies"; run it on a terminal to answer.\n',
      );
      expect(io.questions).toEqual([]);
    });
  });

  describe('without a terminal and without --yes', () => {
    it('declines and says to pass --yes', async () => {
      const { io, answer } = elicit(CONFIRMATION);
      await expect(answer).resolves.toEqual({ action: 'decline' });
      expect(io.err).toBe('Close ticket T-1?\nNot confirmed: there is no terminal to ask on; pass --yes to confirm.\n');
      expect(io.questions).toEqual([]);
    });

    it('declines when only stdin is piped, though stderr is a terminal', async () => {
      const io = fakeCliIo({ tty: true });
      Object.assign(io.stdin, { isTTY: false });
      await expect(terminalElicitation(io, false)(CONFIRMATION)).resolves.toEqual({ action: 'decline' });
      expect(io.err).toContain('pass --yes');
      expect(io.questions).toEqual([]);
    });
  });

  describe('on a terminal', () => {
    it.each(['y', 'Y', 'yes', 'YES', ' yes '])(
      'asks the confirmation as one [y/N] line; %j confirms',
      async (typed) => {
        const { io, answer } = elicit(CONFIRMATION, { tty: true, answers: [typed] });
        await expect(answer).resolves.toEqual({ action: 'accept', content: { confirm: true } });
        expect(io.questions).toEqual(['Close ticket T-1? [y/N] ']);
      },
    );

    it.each(['', 'n', 'no', 'yep', 'y es', 'ja', 'true'])('declines on anything but y or yes: %j', async (typed) => {
      const { answer } = elicit(CONFIRMATION, { tty: true, answers: [typed] });
      await expect(answer).resolves.toEqual({ action: 'decline' });
    });

    it('asks a form field by field: choices, defaults, types', async () => {
      const { io, answer } = elicit(FORM, { tty: true, answers: ['', '3', 'y', 'ops@example.com', ''] });
      await expect(answer).resolves.toEqual({
        action: 'accept',
        content: { format: 'csv', copies: 3, notify: true, recipient: 'ops@example.com' },
      });
      expect(io.err).toBe('Where should the report go?\n');
      expect(io.questions).toEqual([
        'Format (csv/pdf) [csv]: ',
        'Copies: ',
        'Notify the team (y/n): ',
        'Recipient: ',
        'note: ',
      ]);
    });

    it('asks again for a number that is not one, a choice not offered, or a required field left empty', async () => {
      const answers = ['xml', 'pdf', '2.5', '', '3', 'n', '', 'ops@example.com', ''];
      const { io, answer } = elicit(FORM, { tty: true, answers });
      await expect(answer).resolves.toEqual({
        action: 'accept',
        content: { format: 'pdf', copies: 3, notify: false, recipient: 'ops@example.com' },
      });
      expect(io.questions).toEqual([
        'Format (csv/pdf) [csv]: ',
        'Format (csv/pdf) [csv]: ',
        'Copies: ',
        'Copies: ',
        'Copies: ',
        'Notify the team (y/n): ',
        'Recipient: ',
        'Recipient: ',
        'note: ',
      ]);
      expect(io.err).toContain('Format: one of csv, pdf');
      expect(io.err).toContain('Copies: a whole number');
      expect(io.err).toContain('Copies: required');
    });

    it('declines the form after three answers that are not one, saying which field', async () => {
      const { io, answer } = elicit(FORM, { tty: true, answers: ['pdf', 'three', 'NaN', 'Infinity'] });
      await expect(answer).resolves.toEqual({ action: 'decline' });
      expect(io.questions).toEqual(['Format (csv/pdf) [csv]: ', 'Copies: ', 'Copies: ', 'Copies: ']);
      expect(io.err).toMatch(/Not answered: "Copies" after 3 tries\.\n$/);
    });

    it('leaves an optional number out when nothing is typed (not 0)', async () => {
      const params: Params = {
        message: 'How many?',
        requestedSchema: { type: 'object', properties: { count: { type: 'number' }, label: { type: 'string' } } },
      };
      await expect(elicit(params, { tty: true, answers: ['', 'x'] }).answer).resolves.toEqual({
        action: 'accept',
        content: { label: 'x' },
      });
    });
  });

  it('declines a URL-mode request and prints where to answer it', async () => {
    const params: Params = {
      mode: 'url',
      message: 'Approve the refund on the approval page.',
      url: 'https://desk.example.com/admin/approvals#approval=a1',
      elicitationId: 'a1',
    };
    const { io, answer } = elicit(params, { tty: true, yes: true });
    await expect(answer).resolves.toEqual({ action: 'decline' });
    expect(io.err).toBe(
      'Approve the refund on the approval page.\n' +
        'Open https://desk.example.com/admin/approvals#approval=a1 to answer; the call was not confirmed here.\n',
    );
    expect(io.questions).toEqual([]);
  });
});
