/** Protocol errors of `resources/read`. */
export const ResourceMessages = {
  failed: (uri: string, message: string) => `resources/read "${uri}" failed: ${message}`,
  internal: (uri: string, reference: string) => `resources/read "${uri}" failed with an internal error (reference ${reference})`,
} as const;
