import { Injectable } from '@nestjs/common';

export interface Article {
  slug: string;
  title: string;
  body: string;
}

const ARTICLES: readonly Article[] = [
  {
    slug: 'password-reset',
    title: 'Resetting a password',
    body: 'Users reset passwords at https://id.acme.example/reset. Links expire after 30 minutes; a rejected new password usually violates the 12-character rule.',
  },
  {
    slug: 'vat-rates',
    title: 'VAT on invoices',
    body: 'Books and e-books carry 7 % VAT, everything else 19 %. Wrong rates come from a product category mapped to "general"; fix the mapping and re-issue the invoice.',
  },
  {
    slug: 'sso-setup',
    title: 'Single sign-on (SAML)',
    body: 'Enterprise tier only. Send the customer the metadata URL and ask for their IdP certificate; activation takes one business day.',
  },
  {
    slug: 'rate-limits',
    title: 'API rate limits',
    body: 'Standard: 60 requests/min; premium: 300; enterprise: 1,000 with bursts. Nightly syncs should use the bulk export endpoint instead.',
  },
  {
    slug: 'refunds',
    title: 'Refunding a duplicate charge',
    body: 'Refund the later charge from the billing console; the customer sees the money in 3–5 business days. Add a comment with the refund id.',
  },
];

/** Knowledge-base articles agents can read while they work tickets. */
@Injectable()
export class KnowledgeBaseStore {
  private readonly articles = new Map(ARTICLES.map((article) => [article.slug, article]));

  find(slug: string): Article | undefined {
    return this.articles.get(slug);
  }

  all(): Article[] {
    return [...this.articles.values()];
  }
}
