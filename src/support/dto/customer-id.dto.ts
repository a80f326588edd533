import { Matches } from 'class-validator';

export class CustomerIdDto {
  @Matches(/^C-\d{4}$/, { message: 'customerId must look like C-1001' })
  customerId!: string;
}
