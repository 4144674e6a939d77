/* UART0 at HUB_BAUD (uart.h), 8N1, interrupt-driven both ways. */
#include <avr/interrupt.h>
#include <avr/io.h>

#include "clock.h"
#include "uart.h"

#if (F_CPU % (8UL * HUB_BAUD)) != 0
#error "HUB_BAUD does not divide the clock exactly: use 1000000, 500000 or 250000 at 16 MHz"
#endif
#define UBRR_VALUE (F_CPU / (8UL * HUB_BAUD) - 1) /* with U2X */

static volatile uint8_t rx_buf[32];
static volatile uint8_t rx_head, rx_tail;
/* Two line buffers: the interrupt sends one while the main loop formats the next line into the
 * other, so formatting overlaps the wire instead of waiting for it (issue: 1,000 events/s).  A
 * buffer is free when its length is 0; the interrupt frees the one it finished and goes on to the
 * other if a line waits there. */
static char tx_line[2][FW_LINE_MAX];
static volatile uint8_t tx_len[2], tx_cur, tx_pos;

/* Transmit from the interrupt, so the wire stays busy however long a main-loop pass takes. */
ISR(USART_UDRE_vect)
{
    if (tx_pos >= tx_len[tx_cur]) { /* this line is sent: free its buffer, go on to the other */
        tx_len[tx_cur] = 0;
        tx_cur ^= 1;
        tx_pos = 0;
        if (!tx_len[tx_cur]) {
            UCSR0B &= (uint8_t)~_BV(UDRIE0);
            return;
        }
    }
    UDR0 = (uint8_t)tx_line[tx_cur][tx_pos++];
}

ISR(USART_RX_vect)
{
    uint8_t byte = UDR0, next = (uint8_t)((rx_head + 1) & 31);
    if (next != rx_tail) {
        rx_buf[rx_head] = byte;
        rx_head = next;
    }
}

void uart_init(void)
{
    UCSR0A = _BV(U2X0);
    UBRR0 = UBRR_VALUE;                 /* HUB_BAUD exactly */
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00); /* 8N1 */
}

void uart_serve(fw_hub_t *hub, uart_more_lines_t more)
{
    if (rx_tail != rx_head) { /* a question read now is answered with the clock of now */
        uint16_t us;
        uint32_t ms = millis_us(&us);
        fw_hub_set_time(hub, ms, us);
    }
    while (rx_tail != rx_head) {
        fw_hub_rx_byte(hub, rx_buf[rx_tail]);
        rx_tail = (uint8_t)((rx_tail + 1) & 31);
    }
    /* The buffer being sent if it is free (the wire is idle), else the other one, if free. */
    uint8_t cur = tx_cur; /* read once: the interrupt may move on meanwhile, which is safe */
    uint8_t free = tx_len[cur] ? (uint8_t)(cur ^ 1) : cur;
    if (tx_len[free])
        return; /* a line is being sent and the next one waits: the wire is the limit now */
    uint8_t len = fw_hub_next_line(hub, tx_line[free]);
    if (!len && more)
        len = more(tx_line[free]);
    if (!len)
        return;
    tx_len[free] = len; /* one byte: the interrupt sees all of it or none */
    UCSR0B |= _BV(UDRIE0);
}
