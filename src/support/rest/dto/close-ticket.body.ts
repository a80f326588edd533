import { OmitType } from '@nestjs/swagger';
import { CloseTicketDto } from '../../dto/close-ticket.dto';

/** The body of `POST /api/tickets/:ticketId/close`: the resolution (the ticket is in the path). */
export class CloseTicketBody extends OmitType(CloseTicketDto, ['ticketId'] as const) {}
